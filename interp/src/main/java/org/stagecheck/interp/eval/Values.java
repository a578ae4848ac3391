package org.stagecheck.interp.eval;

import org.stagecheck.tensor.numeric.Rounding;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;

/** Conversions between tensors and working arrays, with the storage rounding rule of a stage's end. */
final class Values {
    private Values() {
    }

    /** The values exactly widened to f32 (i32 and float64 values rounded to nearest); may alias f32 storage. */
    static float[] floats(Tensor t) {
        float[] raw = t.rawFloats();
        if (raw != null) {
            return raw;
        }
        short[] bits = t.rawBits16();
        if (bits != null) {
            float[] v = new float[bits.length];
            if (t.dtype() == DType.BF16) {
                for (int i = 0; i < v.length; i++) {
                    v[i] = Float.intBitsToFloat((bits[i] & 0xFFFF) << 16);
                }
            } else {
                for (int i = 0; i < v.length; i++) {
                    v[i] = Rounding.widen16(DType.F16, bits[i]);
                }
            }
            return v;
        }
        return t.toFloats();
    }

    /** The values as doubles (exact). */
    static double[] doubles(Tensor t) {
        double[] raw = t.rawDoubles();
        return raw != null ? raw : t.toDoubles();
    }

    /**
     * Every NaN in {@code v} made the one canonical NaN ({@code Float.NaN}, bits {@code 0x7FC00000}),
     * in place. Which NaN an operation on two NaNs returns is not fixed by the JVM (the JIT may swap
     * the operands of a commutative add, an interpreted {@code Math.fma} and its intrinsic differ),
     * so a computed NaN's sign and payload could change from one run to the next; a computing stage
     * therefore stores only this NaN (docs/semantics.md, "NaN").
     */
    static float[] canonicalNaNs(float[] v, int n) {
        for (int i = 0; i < n; i++) {
            if (v[i] != v[i]) {
                v[i] = Float.NaN;
            }
        }
        return v;
    }

    /** {@link #canonicalNaNs(float[], int)} for float64-mode values ({@code Double.NaN}). */
    static double[] canonicalNaNs(double[] v, int n) {
        for (int i = 0; i < n; i++) {
            if (v[i] != v[i]) {
                v[i] = Double.NaN;
            }
        }
        return v;
    }

    /**
     * f32 working values stored in {@code dtype}, rounding once (ties to even; i32 truncates); a
     * NaN is stored as the canonical NaN of the dtype. {@code v} is owned by the caller's stage and
     * is changed in place.
     */
    static Tensor ofFloats(DType dtype, Shape shape, float[] v) {
        canonicalNaNs(v, v.length);
        return switch (dtype) {
            case F32 -> Tensor.wrapFloats(shape, v);
            case BF16, F16 -> {
                short[] s = new short[v.length];
                for (int i = 0; i < v.length; i++) {
                    s[i] = Rounding.narrow16(dtype, v[i]);
                }
                yield Tensor.wrapBits16(dtype, shape, s);
            }
            case E4M3, E5M2 -> {
                org.stagecheck.tensor.numeric.Fp8 f8 = Rounding.fp8(dtype);
                byte[] s = new byte[v.length];
                for (int i = 0; i < v.length; i++) {
                    s[i] = f8.fromFloat(v[i]);
                }
                yield Tensor.wrapBits8(dtype, shape, s);
            }
            case I32 -> {
                int[] s = new int[v.length];
                for (int i = 0; i < v.length; i++) {
                    s[i] = (int) v[i];
                }
                yield Tensor.wrapInts(shape, s);
            }
        };
    }

    /** float64-mode working values: kept as doubles for floating dtypes, truncated for i32. */
    static Tensor ofDoubles(DType dtype, Shape shape, double[] v) {
        if (dtype.isFloating()) {
            return Tensor.wrapDoubles(dtype, shape, canonicalNaNs(v, v.length));
        }
        int[] s = new int[v.length];
        for (int i = 0; i < v.length; i++) {
            s[i] = (int) v[i];
        }
        return Tensor.wrapInts(shape, s);
    }

    /** i32 working values stored in {@code dtype} (floats: converted to f32 by RNE, then rounded). */
    static Tensor ofInts(DType dtype, Shape shape, int[] v, boolean f64) {
        if (dtype == DType.I32) {
            return Tensor.wrapInts(shape, v);
        }
        if (f64) {
            double[] d = new double[v.length];
            for (int i = 0; i < v.length; i++) {
                d[i] = v[i];
            }
            return Tensor.wrapDoubles(dtype, shape, d);
        }
        float[] f = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            f[i] = v[i];
        }
        return ofFloats(dtype, shape, f);
    }
}
