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
 * An n-d array of one {@link DType}, row-major: the values of DRAM tensors and core buffers, shared
 * by every backend (brief, "Modules").
 *
 * <p>Storage is one {@link Storage} record chosen per dtype by {@link Storage#allocate}: f32 as
 * {@code float[]}, bf16 and f16 as their raw 16-bit patterns in a {@code short[]}, e4m3 and e5m2
 * as their 8-bit codes in a {@code byte[]}, i32 as {@code int[]}. A tensor made in the float64
 * evaluation mode ({@link #isFloat64()}) holds {@code double[]} whatever its nominal floating
 * dtype. Element values are decoded per dtype by exhaustive switches in this class. A tensor
 * handed out is never mutated afterwards; the {@code raw*} accessors return the backing array
 * without a copy for the evaluators' hot paths and must be treated as read-only.
 */
public final class Tensor {
    /** The most elements a tensor may hold: Java arrays are int-indexed. */
    public static final long MAX_ELEMENTS = Integer.MAX_VALUE - 8;

    private final DType dtype;
    private final Shape shape;
    private final Storage storage;

    private Tensor(DType dtype, Shape shape, Storage storage) {
        this.dtype = Objects.requireNonNull(dtype, "dtype");
        this.shape = Objects.requireNonNull(shape, "shape");
        this.storage = Objects.requireNonNull(storage, "storage");
        if (storage instanceof Storage.Doubles) {
            if (!dtype.isFloating()) {
                throw new IllegalArgumentException("float64-mode storage needs a floating dtype, not " + dtype);
            }
        } else if (!Storage.fits(dtype, storage)) {
            throw new IllegalArgumentException(dtype + " is not stored as " + storage.getClass().getSimpleName());
        }
        long n = shape.elementCount();
        if (n != storage.length()) {
            throw new IllegalArgumentException("shape " + shape + " holds " + n + " elements, the data " + storage.length());
        }
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
        return storage.length();
    }

    /** The backing storage (read-only). */
    public Storage storage() {
        return storage;
    }

    /** True only for values made in the float64 evaluation mode (storage is double[]). */
    public boolean isFloat64() {
        return storage instanceof Storage.Doubles;
    }

    public static Tensor zeros(DType dtype, Shape shape) {
        return new Tensor(dtype, shape, Storage.allocate(dtype, checkedCount(shape)));
    }

    /** A float64-mode tensor of zeros with nominal dtype {@code dtype}. */
    public static Tensor zerosFloat64(DType dtype, Shape shape) {
        return new Tensor(dtype, shape, new Storage.Doubles(new double[checkedCount(shape)]));
    }

    /** Takes ownership of {@code storage}, which must be the kind {@code dtype} uses (or float64-mode doubles). */
    public static Tensor wrap(DType dtype, Shape shape, Storage storage) {
        return new Tensor(dtype, shape, storage);
    }

    /**
     * Each value rounded to {@code dtype}: ties to even for bf16/f16/e4m3/e5m2 (the 8-bit floats
     * saturating); for I32 truncation toward zero, saturating, NaN to 0.
     */
    public static Tensor fromFloats(DType dtype, Shape shape, float[] values) {
        Storage st = Storage.allocate(dtype, values.length);
        switch (st) {
            case Storage.Floats f -> System.arraycopy(values, 0, f.values(), 0, values.length);
            case Storage.Bits16 b -> {
                for (int i = 0; i < values.length; i++) {
                    b.bits()[i] = Rounding.narrow16(dtype, values[i]);
                }
            }
            case Storage.Bits8 b -> {
                for (int i = 0; i < values.length; i++) {
                    b.bits()[i] = Rounding.narrow8(dtype, values[i]);
                }
            }
            case Storage.Ints n -> {
                for (int i = 0; i < values.length; i++) {
                    n.values()[i] = (int) values[i];
                }
            }
            case Storage.Doubles d -> throw new IllegalStateException("allocate never gives float64-mode storage");
        }
        return new Tensor(dtype, shape, st);
    }

    public static Tensor fromInts(Shape shape, int[] values) {
        return new Tensor(DType.I32, shape, new Storage.Ints(values.clone()));
    }

    /** A float64-mode tensor whose nominal dtype is {@code dtype}; values kept exactly. */
    public static Tensor fromDoubles(DType dtype, Shape shape, double[] values) {
        return new Tensor(dtype, shape, new Storage.Doubles(values.clone()));
    }

    /** A bf16 or f16 tensor from raw 16-bit patterns (copied). */
    public static Tensor fromBits16(DType dtype, Shape shape, short[] bits) {
        return new Tensor(dtype, shape, new Storage.Bits16(bits.clone()));
    }

    /** An e4m3 or e5m2 tensor from raw 8-bit codes (copied). */
    public static Tensor fromBits8(DType dtype, Shape shape, byte[] bits) {
        return new Tensor(dtype, shape, new Storage.Bits8(bits.clone()));
    }

    /** Takes ownership of {@code values}: the caller must not touch the array afterwards. */
    public static Tensor wrapFloats(Shape shape, float[] values) {
        return new Tensor(DType.F32, shape, new Storage.Floats(values));
    }

    /** Takes ownership of {@code bits} (bf16 or f16 patterns). */
    public static Tensor wrapBits16(DType dtype, Shape shape, short[] bits) {
        return new Tensor(dtype, shape, new Storage.Bits16(bits));
    }

    /** Takes ownership of {@code bits} (e4m3 or e5m2 codes). */
    public static Tensor wrapBits8(DType dtype, Shape shape, byte[] bits) {
        return new Tensor(dtype, shape, new Storage.Bits8(bits));
    }

    /** Takes ownership of {@code values}. */
    public static Tensor wrapInts(Shape shape, int[] values) {
        return new Tensor(DType.I32, shape, new Storage.Ints(values));
    }

    /** Takes ownership of {@code values}: a float64-mode tensor of nominal dtype {@code dtype}. */
    public static Tensor wrapDoubles(DType dtype, Shape shape, double[] values) {
        return new Tensor(dtype, shape, new Storage.Doubles(values));
    }

    /** The element as f32: exact for every floating dtype, RNE for i32 and float64-mode values. */
    public float getFloat(long flatIndex) {
        int i = Math.toIntExact(flatIndex);
        return switch (storage) {
            case Storage.Floats f -> f.values()[i];
            case Storage.Bits16 b -> Rounding.widen16(dtype, b.bits()[i]);
            case Storage.Bits8 b -> Rounding.widen8(dtype, b.bits()[i]);
            case Storage.Ints n -> (float) n.values()[i];
            case Storage.Doubles d -> (float) d.values()[i];
        };
    }

    /** The element as i32: floats truncate toward zero, saturating, NaN to 0. */
    public int getInt(long flatIndex) {
        int i = Math.toIntExact(flatIndex);
        return switch (storage) {
            case Storage.Ints n -> n.values()[i];
            case Storage.Doubles d -> (int) d.values()[i];
            case Storage.Floats f -> (int) f.values()[i];
            case Storage.Bits16 b -> (int) getFloat(i);
            case Storage.Bits8 b -> (int) getFloat(i);
        };
    }

    /** The element as a double, exactly. */
    public double getDouble(long flatIndex) {
        int i = Math.toIntExact(flatIndex);
        return switch (storage) {
            case Storage.Ints n -> n.values()[i];
            case Storage.Doubles d -> d.values()[i];
            case Storage.Floats f -> f.values()[i];
            case Storage.Bits16 b -> getFloat(i);
            case Storage.Bits8 b -> getFloat(i);
        };
    }

    public float[] toFloats() {
        float[] out = new float[storage.length()];
        for (int i = 0; i < out.length; i++) {
            out[i] = getFloat(i);
        }
        return out;
    }

    public int[] toInts() {
        int[] out = new int[storage.length()];
        for (int i = 0; i < out.length; i++) {
            out[i] = getInt(i);
        }
        return out;
    }

    public double[] toDoubles() {
        if (storage instanceof Storage.Doubles d) {
            return d.values().clone();
        }
        double[] out = new double[storage.length()];
        for (int i = 0; i < out.length; i++) {
            out[i] = getDouble(i);
        }
        return out;
    }

    /** The backing f32 array (read-only), or null when the storage is another kind. */
    public float[] rawFloats() {
        return storage instanceof Storage.Floats f ? f.values() : null;
    }

    /** The backing bf16/f16 patterns (read-only), or null. */
    public short[] rawBits16() {
        return storage instanceof Storage.Bits16 b ? b.bits() : null;
    }

    /** The backing e4m3/e5m2 codes (read-only), or null. */
    public byte[] rawBits8() {
        return storage instanceof Storage.Bits8 b ? b.bits() : null;
    }

    /** The backing i32 array (read-only), or null. */
    public int[] rawInts() {
        return storage instanceof Storage.Ints n ? n.values() : null;
    }

    /** The backing double array of a float64-mode tensor (read-only), or null. */
    public double[] rawDoubles() {
        return storage instanceof Storage.Doubles d ? d.values() : null;
    }

    /** This tensor with another shape of the same element count (shares nothing mutable). */
    public Tensor reshaped(Shape newShape) {
        return new Tensor(dtype, newShape, storage);
    }

    /** A deep copy (for a run that will write it in place). */
    public Tensor copy() {
        return new Tensor(dtype, shape, storage.copy());
    }

    /** Same dtype, shape, float64-ness and identical bits (NaN payloads and signed zeros included). */
    public boolean bitEquals(Tensor other) {
        if (other == null || dtype != other.dtype || !shape.equals(other.shape) || isFloat64() != other.isFloat64()) {
            return false;
        }
        return switch (storage) {
            case Storage.Bits16 a when other.storage instanceof Storage.Bits16 b -> Arrays.equals(a.bits(), b.bits());
            case Storage.Bits8 a when other.storage instanceof Storage.Bits8 b -> Arrays.equals(a.bits(), b.bits());
            case Storage.Ints a when other.storage instanceof Storage.Ints b -> Arrays.equals(a.values(), b.values());
            case Storage.Floats a when other.storage instanceof Storage.Floats b -> rawEquals(a.values(), b.values());
            case Storage.Floats _, Storage.Bits16 _, Storage.Bits8 _, Storage.Ints _, Storage.Doubles _ ->
                    Arrays.equals(littleEndianBytes(), other.littleEndianBytes());
        };
    }

    /** Element by element on the raw bits ({@code Arrays.equals} on floats folds NaN payloads together). */
    private static boolean rawEquals(float[] a, float[] b) {
        if (a.length != b.length) {
            return false;
        }
        for (int i = 0; i < a.length; i++) {
            if (Float.floatToRawIntBits(a[i]) != Float.floatToRawIntBits(b[i])) {
                return false;
            }
        }
        return true;
    }

    /** The elements as little-endian bytes: the .npy data layout (f64-mode values as 8-byte doubles). */
    public byte[] littleEndianBytes() {
        ByteBuffer b = ByteBuffer.allocate(Math.multiplyExact(storage.length(), storage.width())).order(ByteOrder.LITTLE_ENDIAN);
        storage.putLittleEndian(b);
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
