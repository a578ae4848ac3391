package org.stagecheck.interp.eval;

import org.stagecheck.tensor.numeric.Rounding;
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
            switch (src.dtype()) {
                case F32 -> System.arraycopy(src.rawFloats(), srcPos, dst.rawFloats(), dstPos, len);
                case BF16, F16 -> System.arraycopy(src.rawBits16(), srcPos, dst.rawBits16(), dstPos, len);
                case I32 -> System.arraycopy(src.rawInts(), srcPos, dst.rawInts(), dstPos, len);
            }
            return;
        }
        for (int e = 0; e < len; e++) {
            set(dst, dstPos + e, src, srcPos + e);
        }
    }

    private static void set(Tensor dst, int d, Tensor src, int s) {
        if (dst.isFloat64()) {
            dst.rawDoubles()[d] = src.getDouble(s);
            return;
        }
        switch (dst.dtype()) {
            case F32 -> dst.rawFloats()[d] = src.getFloat(s);
            case BF16, F16 -> dst.rawBits16()[d] = Rounding.narrow16(dst.dtype(), src.getFloat(s));
            case I32 -> dst.rawInts()[d] = (int) src.getDouble(s);
        }
    }
}
