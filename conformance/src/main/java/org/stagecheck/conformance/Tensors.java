package org.stagecheck.conformance;

import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;

/**
 * Tensor literals for cases. Expected values are written either as numbers that the dtype holds
 * exactly ({@link #exact}, which refuses a value it would have to round, so an expectation never
 * leans on the library's own rounding) or as raw codes ({@link #bits}) where a case is about
 * rounding.
 */
public final class Tensors {
    private Tensors() {
    }

    public static int[] dims(int... d) {
        return d;
    }

    /** 0, 1, ..., n-1. */
    public static float[] iota(int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = i;
        }
        return v;
    }

    public static Tensor f32(int[] dims, float... v) {
        return Tensor.fromFloats(DType.F32, Shape.of(dims), v);
    }

    public static Tensor i32(int[] dims, int... v) {
        return Tensor.fromInts(Shape.of(dims), v);
    }

    /**
     * A tensor of {@code dtype} holding exactly {@code v}; a value the dtype cannot hold (it would
     * round) is refused. NaN is allowed in floating dtypes (any NaN code).
     */
    public static Tensor exact(DType dtype, int[] dims, float... v) {
        Tensor t = Tensor.fromFloats(dtype, Shape.of(dims), v);
        for (int i = 0; i < v.length; i++) {
            float held = t.getFloat(i);
            boolean same = Float.isNaN(v[i]) ? dtype.isFloating() && Float.isNaN(held)
                    : Float.floatToRawIntBits(held) == Float.floatToRawIntBits(v[i]);
            if (!same) {
                throw new IllegalArgumentException(v[i] + " is not exactly a " + dtype + " value (it would be " + held + ")");
            }
        }
        return t;
    }

    /**
     * A tensor of {@code dtype} from raw codes: f32 and i32 bit patterns, bf16/f16 16-bit patterns,
     * e4m3/e5m2 8-bit codes (each code's unused high bits must be zero).
     */
    public static Tensor bits(DType dtype, int[] dims, int... codes) {
        Shape shape = Shape.of(dims);
        return switch (dtype) {
            case F32 -> {
                float[] v = new float[codes.length];
                for (int i = 0; i < v.length; i++) {
                    v[i] = Float.intBitsToFloat(codes[i]);
                }
                yield Tensor.wrapFloats(shape, v);
            }
            case BF16, F16 -> {
                short[] s = new short[codes.length];
                for (int i = 0; i < s.length; i++) {
                    s[i] = (short) checkWidth(codes[i], 16);
                }
                yield Tensor.fromBits16(dtype, shape, s);
            }
            case I32 -> Tensor.fromInts(shape, codes);
            case E4M3, E5M2 -> {
                byte[] b = new byte[codes.length];
                for (int i = 0; i < b.length; i++) {
                    b[i] = (byte) checkWidth(codes[i], 8);
                }
                yield Tensor.fromBits8(dtype, shape, b);
            }
        };
    }

    private static int checkWidth(int code, int width) {
        if ((code >>> width) != 0) {
            throw new IllegalArgumentException("code 0x" + Integer.toHexString(code) + " has more than " + width + " bits");
        }
        return code;
    }
}
