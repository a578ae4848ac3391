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

    /** f32 working values stored in {@code dtype}, rounding once (ties to even; i32 truncates). */
    static Tensor ofFloats(DType dtype, Shape shape, float[] v) {
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
            return Tensor.wrapDoubles(dtype, shape, v);
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
