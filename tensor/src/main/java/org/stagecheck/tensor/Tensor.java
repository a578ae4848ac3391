package org.stagecheck.tensor;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

import org.stagecheck.tensor.numeric.Rounding;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;

/**
 * An n-d array of one {@link DType}, row-major: the values of DRAM tensors and core buffers in
 * the reference evaluator (brief, "Reference semantics").
 *
 * <p>Storage per dtype: f32 as {@code float[]}, bf16 and f16 as their raw 16-bit patterns in a
 * {@code short[]}, i32 as {@code int[]}. A tensor made in the float64 evaluation mode
 * ({@link #isFloat64()}) holds {@code double[]} whatever its nominal floating dtype. A tensor
 * handed out is never mutated afterwards; the {@code raw*} accessors return the backing array
 * without a copy for the evaluator's hot paths and must be treated as read-only.
 */
public final class Tensor {
    /** The most elements a tensor may hold: Java arrays are int-indexed. */
    public static final long MAX_ELEMENTS = Integer.MAX_VALUE - 8;

    private final DType dtype;
    private final Shape shape;
    private final float[] f32;
    private final short[] half;
    private final int[] i32;
    private final double[] f64;

    private Tensor(DType dtype, Shape shape, float[] f32, short[] half, int[] i32, double[] f64) {
        this.dtype = Objects.requireNonNull(dtype, "dtype");
        this.shape = Objects.requireNonNull(shape, "shape");
        this.f32 = f32;
        this.half = half;
        this.i32 = i32;
        this.f64 = f64;
        long n = shape.elementCount();
        if (n != length()) {
            throw new IllegalArgumentException("shape " + shape + " holds " + n + " elements, the data " + length());
        }
    }

    private int length() {
        if (f64 != null) {
            return f64.length;
        }
        return switch (dtype) {
            case F32 -> f32.length;
            case BF16, F16 -> half.length;
            case I32 -> i32.length;
        };
    }

    private static int checkedCount(Shape shape) {
        long n = shape.elementCount();
        if (n > MAX_ELEMENTS) {
            throw new IllegalArgumentException("shape " + shape + " has " + n + " elements, more than the limit " + MAX_ELEMENTS);
        }
        return (int) n;
    }

    public DType dtype() {
        return dtype;
    }

    public Shape shape() {
        return shape;
    }

    public long size() {
        return length();
    }

    /** True only for values made in the float64 evaluation mode (storage is double[]). */
    public boolean isFloat64() {
        return f64 != null;
    }

    public static Tensor zeros(DType dtype, Shape shape) {
        int n = checkedCount(shape);
        return switch (dtype) {
            case F32 -> new Tensor(dtype, shape, new float[n], null, null, null);
            case BF16, F16 -> new Tensor(dtype, shape, null, new short[n], null, null);
            case I32 -> new Tensor(dtype, shape, null, null, new int[n], null);
        };
    }

    /** A float64-mode tensor of zeros with nominal dtype {@code dtype}. */
    public static Tensor zerosFloat64(DType dtype, Shape shape) {
        return new Tensor(dtype, shape, null, null, null, new double[checkedCount(shape)]);
    }

    /**
     * Each value rounded to {@code dtype}: ties to even for bf16/f16; for I32 truncation toward
     * zero, saturating, NaN to 0.
     */
    public static Tensor fromFloats(DType dtype, Shape shape, float[] values) {
        float[] v = values.clone();
        return switch (dtype) {
            case F32 -> new Tensor(dtype, shape, v, null, null, null);
            case BF16, F16 -> {
                short[] s = new short[v.length];
                for (int i = 0; i < v.length; i++) {
                    s[i] = Rounding.narrow16(dtype, v[i]);
                }
                yield new Tensor(dtype, shape, null, s, null, null);
            }
            case I32 -> {
                int[] s = new int[v.length];
                for (int i = 0; i < v.length; i++) {
                    s[i] = (int) v[i];
                }
                yield new Tensor(dtype, shape, null, null, s, null);
            }
        };
    }

    public static Tensor fromInts(Shape shape, int[] values) {
        return new Tensor(DType.I32, shape, null, null, values.clone(), null);
    }

    /** A float64-mode tensor whose nominal dtype is {@code dtype}; values kept exactly. */
    public static Tensor fromDoubles(DType dtype, Shape shape, double[] values) {
        return new Tensor(dtype, shape, null, null, null, values.clone());
    }

    /** A bf16 or f16 tensor from raw 16-bit patterns (copied). */
    public static Tensor fromBits16(DType dtype, Shape shape, short[] bits) {
        if (dtype != DType.BF16 && dtype != DType.F16) {
            throw new IllegalArgumentException(dtype + " is not stored as 16-bit patterns");
        }
        return new Tensor(dtype, shape, null, bits.clone(), null, null);
    }

    /** Takes ownership of {@code values}: the caller must not touch the array afterwards. */
    public static Tensor wrapFloats(Shape shape, float[] values) {
        return new Tensor(DType.F32, shape, values, null, null, null);
    }

    /** Takes ownership of {@code bits} (bf16 or f16 patterns). */
    public static Tensor wrapBits16(DType dtype, Shape shape, short[] bits) {
        if (dtype != DType.BF16 && dtype != DType.F16) {
            throw new IllegalArgumentException(dtype + " is not stored as 16-bit patterns");
        }
        return new Tensor(dtype, shape, null, bits, null, null);
    }

    /** Takes ownership of {@code values}. */
    public static Tensor wrapInts(Shape shape, int[] values) {
        return new Tensor(DType.I32, shape, null, null, values, null);
    }

    /** Takes ownership of {@code values}: a float64-mode tensor of nominal dtype {@code dtype}. */
    public static Tensor wrapDoubles(DType dtype, Shape shape, double[] values) {
        return new Tensor(dtype, shape, null, null, null, values);
    }

    /** The element as f32: exact for f32/bf16/f16, RNE for i32 and float64-mode values. */
    public float getFloat(long flatIndex) {
        int i = Math.toIntExact(flatIndex);
        if (f64 != null) {
            return (float) f64[i];
        }
        return switch (dtype) {
            case F32 -> f32[i];
            case BF16, F16 -> Rounding.widen16(dtype, half[i]);
            case I32 -> (float) i32[i];
        };
    }

    /** The element as i32: floats truncate toward zero, saturating, NaN to 0. */
    public int getInt(long flatIndex) {
        int i = Math.toIntExact(flatIndex);
        if (f64 != null) {
            return (int) f64[i];
        }
        return switch (dtype) {
            case F32, BF16, F16 -> (int) getFloat(i);
            case I32 -> i32[i];
        };
    }

    /** The element as a double, exactly. */
    public double getDouble(long flatIndex) {
        int i = Math.toIntExact(flatIndex);
        if (f64 != null) {
            return f64[i];
        }
        return switch (dtype) {
            case F32, BF16, F16 -> getFloat(i);
            case I32 -> i32[i];
        };
    }

    public float[] toFloats() {
        float[] out = new float[length()];
        for (int i = 0; i < out.length; i++) {
            out[i] = getFloat(i);
        }
        return out;
    }

    public int[] toInts() {
        int[] out = new int[length()];
        for (int i = 0; i < out.length; i++) {
            out[i] = getInt(i);
        }
        return out;
    }

    public double[] toDoubles() {
        double[] out = new double[length()];
        for (int i = 0; i < out.length; i++) {
            out[i] = getDouble(i);
        }
        return out;
    }

    /** The backing f32 array (read-only), or null when the storage is another kind. */
    public float[] rawFloats() {
        return f64 == null && dtype == DType.F32 ? f32 : null;
    }

    /** The backing bf16/f16 patterns (read-only), or null. */
    public short[] rawBits16() {
        return f64 == null ? half : null;
    }

    /** The backing i32 array (read-only), or null. */
    public int[] rawInts() {
        return f64 == null ? i32 : null;
    }

    /** The backing double array of a float64-mode tensor (read-only), or null. */
    public double[] rawDoubles() {
        return f64;
    }

    /** This tensor with another shape of the same element count (shares nothing mutable). */
    public Tensor reshaped(Shape newShape) {
        return new Tensor(dtype, newShape, f32, half, i32, f64);
    }

    /** Same dtype, shape, float64-ness and identical bits (NaN payloads and signed zeros included). */
    public boolean bitEquals(Tensor other) {
        if (other == null || dtype != other.dtype || !shape.equals(other.shape) || isFloat64() != other.isFloat64()) {
            return false;
        }
        return Arrays.equals(littleEndianBytes(), other.littleEndianBytes());
    }

    /** The elements as little-endian bytes: the .npy data layout (f64-mode values as 8-byte doubles). */
    public byte[] littleEndianBytes() {
        int n = length();
        if (f64 != null) {
            ByteBuffer b = ByteBuffer.allocate(Math.multiplyExact(n, 8)).order(ByteOrder.LITTLE_ENDIAN);
            b.asDoubleBuffer().put(f64);
            return b.array();
        }
        ByteBuffer b = ByteBuffer.allocate(Math.multiplyExact(n, dtype.byteSize())).order(ByteOrder.LITTLE_ENDIAN);
        switch (dtype) {
            case F32 -> b.asFloatBuffer().put(f32);
            case BF16, F16 -> b.asShortBuffer().put(half);
            case I32 -> b.asIntBuffer().put(i32);
        }
        return b.array();
    }

    /** A stable hex SHA-256 of dtype, shape, float64-ness and the little-endian element bytes. */
    public String checksum() {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            md.update((dtype.jsonName() + (isFloat64() ? "/f64" : "") + shape + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
            md.update(littleEndianBytes());
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK provides SHA-256", e);
        }
    }

    @Override
    public String toString() {
        return "Tensor[" + dtype + (isFloat64() ? "/f64" : "") + " " + shape + "]";
    }
}
