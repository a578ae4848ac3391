package org.stagecheck.interp.eval;

import org.stagecheck.tensor.numeric.Rounding;
import org.stagecheck.tensor.Storage;
import org.stagecheck.tensor.Tensor;

/**
 * Element moves between tensors owned by a run. Same storage: a bit copy. Different dtypes: the
 * value goes through f32 (double in float64 mode) and is rounded to the destination dtype by the
 * rule of {@link Rounding} (docs/semantics.md, "Dtypes").
 */
final class Copy {
    private Copy() {
    }

    static void copy(Tensor src, int srcPos, Tensor dst, int dstPos, int len) {
        if (src.isFloat64() && dst.isFloat64()) {
            System.arraycopy(src.rawDoubles(), srcPos, dst.rawDoubles(), dstPos, len);
            return;
        }
        if (!src.isFloat64() && !dst.isFloat64() && src.dtype() == dst.dtype()) {
            Storage.copyBits(src.storage(), srcPos, dst.storage(), dstPos, len);
            return;
        }
        for (int e = 0; e < len; e++) {
            set(dst, dstPos + e, src, srcPos + e);
        }
    }

    private static void set(Tensor dst, int d, Tensor src, int s) {
        switch (dst.storage()) {
            case Storage.Doubles v -> v.values()[d] = src.getDouble(s);
            case Storage.Floats v -> v.values()[d] = src.getFloat(s);
            case Storage.Bits16 v -> v.bits()[d] = Rounding.narrow16(dst.dtype(), src.getFloat(s));
            case Storage.Bits8 v -> v.bits()[d] = Rounding.narrow8(dst.dtype(), src.getFloat(s));
            case Storage.Ints v -> v.values()[d] = (int) src.getDouble(s);
        }
    }
}
