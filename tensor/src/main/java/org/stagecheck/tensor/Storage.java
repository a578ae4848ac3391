package org.stagecheck.tensor;

import java.nio.ByteBuffer;

import org.stagecheck.spec.ir.DType;

/**
 * The backing array of a {@link Tensor}: one record per storage width. Which storage a dtype uses
 * is decided in one place, {@link #allocate(DType, int)}, by an exhaustive switch; every memory
 * operation (length, clone, bit copy, little-endian bytes) is an exhaustive switch over this
 * sealed type, so a new storage class fails to compile wherever it is not handled.
 */
public sealed interface Storage {
    /** f32 values. */
    record Floats(float[] values) implements Storage {}

    /** 16-bit float patterns: bf16 and f16. */
    record Bits16(short[] bits) implements Storage {}

    /** 8-bit float codes: e4m3 and e5m2. */
    record Bits8(byte[] bits) implements Storage {}

    /** i32 values. */
    record Ints(int[] values) implements Storage {}

    /** float64-mode values of any floating dtype. */
    record Doubles(double[] values) implements Storage {}

    /** Zeroed storage for {@code n} elements of {@code dtype}. */
    static Storage allocate(DType dtype, int n) {
        return switch (dtype) {
            case F32 -> new Floats(new float[n]);
            case BF16, F16 -> new Bits16(new short[n]);
            case E4M3, E5M2 -> new Bits8(new byte[n]);
            case I32 -> new Ints(new int[n]);
        };
    }

    /** Whether {@code dtype} is kept in this kind of storage (float64 mode aside). */
    static boolean fits(DType dtype, Storage s) {
        return switch (dtype) {
            case F32 -> s instanceof Floats;
            case BF16, F16 -> s instanceof Bits16;
            case E4M3, E5M2 -> s instanceof Bits8;
            case I32 -> s instanceof Ints;
        };
    }

    default int length() {
        return switch (this) {
            case Floats f -> f.values.length;
            case Bits16 b -> b.bits.length;
            case Bits8 b -> b.bits.length;
            case Ints i -> i.values.length;
            case Doubles d -> d.values.length;
        };
    }

    /** Bytes per element. */
    default int width() {
        return switch (this) {
            case Floats f -> 4;
            case Bits16 b -> 2;
            case Bits8 b -> 1;
            case Ints i -> 4;
            case Doubles d -> 8;
        };
    }

    /** A deep copy. */
    default Storage copy() {
        return switch (this) {
            case Floats f -> new Floats(f.values.clone());
            case Bits16 b -> new Bits16(b.bits.clone());
            case Bits8 b -> new Bits8(b.bits.clone());
            case Ints i -> new Ints(i.values.clone());
            case Doubles d -> new Doubles(d.values.clone());
        };
    }

    /** Copies {@code len} elements bit for bit; {@code dst} must be the same kind of storage. */
    static void copyBits(Storage src, int srcPos, Storage dst, int dstPos, int len) {
        Object to = switch (dst) {
            case Floats f -> f.values;
            case Bits16 b -> b.bits;
            case Bits8 b -> b.bits;
            case Ints i -> i.values;
            case Doubles d -> d.values;
        };
        Object from = switch (src) {
            case Floats f -> f.values;
            case Bits16 b -> b.bits;
            case Bits8 b -> b.bits;
            case Ints i -> i.values;
            case Doubles d -> d.values;
        };
        System.arraycopy(from, srcPos, to, dstPos, len);
    }

    /** Appends the elements, little-endian, to {@code out} (which has room for them). */
    default void putLittleEndian(ByteBuffer out) {
        switch (this) {
            case Floats f -> out.asFloatBuffer().put(f.values);
            case Bits16 b -> out.asShortBuffer().put(b.bits);
            case Bits8 b -> out.put(b.bits);
            case Ints i -> out.asIntBuffer().put(i.values);
            case Doubles d -> out.asDoubleBuffer().put(d.values);
        }
    }

    /**
     * Reads {@code n} elements little-endian from {@code in} (in little-endian order) into
     * {@code dst} at {@code [at, at + n)}: the bulk copy a chunked reader fills a reused buffer with.
     */
    static void readLittleEndianInto(ByteBuffer in, Storage dst, int at, int n) {
        switch (dst) {
            case Floats f -> in.asFloatBuffer().get(f.values, at, n);
            case Bits16 b -> in.asShortBuffer().get(b.bits, at, n);
            case Bits8 b -> in.get(b.bits, at, n);
            case Ints i -> in.asIntBuffer().get(i.values, at, n);
            case Doubles d -> in.asDoubleBuffer().get(d.values, at, n);
        }
    }

    /** {@code n} elements of this kind of storage read little-endian from {@code in}. */
    static Storage readLittleEndian(Storage kind, ByteBuffer in, int n) {
        return switch (kind) {
            case Floats f -> {
                float[] v = new float[n];
                in.asFloatBuffer().get(v);
                yield new Floats(v);
            }
            case Bits16 b -> {
                short[] v = new short[n];
                in.asShortBuffer().get(v);
                yield new Bits16(v);
            }
            case Bits8 b -> {
                byte[] v = new byte[n];
                in.get(v);
                yield new Bits8(v);
            }
            case Ints i -> {
                int[] v = new int[n];
                in.asIntBuffer().get(v);
                yield new Ints(v);
            }
            case Doubles d -> {
                double[] v = new double[n];
                in.asDoubleBuffer().get(v);
                yield new Doubles(v);
            }
        };
    }
}
