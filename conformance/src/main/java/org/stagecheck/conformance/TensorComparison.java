package org.stagecheck.conformance;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;

/**
 * Compares a backend's tensor with a case's expectation under the {@link Tolerance} rule, element
 * by element on the stored bits (read through {@link Tensor#littleEndianBytes()}, so every dtype's
 * storage is handled alike), and describes the first mismatches as value and bits.
 */
public final class TensorComparison {
    /** How many differing elements a message lists before it only counts them. */
    static final int LISTED = 3;

    private TensorComparison() {
    }

    /**
     * Empty when {@code actual} matches; otherwise what differs: dtype or shape, or the count of
     * differing elements and the first {@value #LISTED} of them with index, expected and actual.
     */
    public static Optional<String> mismatch(Expected expected, Tensor actual) {
        Tensor want = expected.value();
        if (actual == null) {
            return Optional.of("the backend returned no tensor '" + expected.tensor() + "'");
        }
        if (actual.isFloat64()) {
            return Optional.of("the backend returned float64 values, not " + want.dtype() + " elements");
        }
        if (actual.dtype() != want.dtype() || !actual.shape().equals(want.shape())) {
            return Optional.of("expected " + want.dtype() + want.shape() + " but the backend returned " + actual.dtype() + actual.shape());
        }
        int width = want.dtype().byteSize();
        byte[] wantBytes = want.littleEndianBytes();
        byte[] gotBytes = actual.littleEndianBytes();
        long n = want.size();
        List<String> listed = new ArrayList<>();
        long differing = 0;
        for (long i = 0; i < n; i++) {
            long w = bits(wantBytes, i, width);
            long g = bits(gotBytes, i, width);
            if (!matches(expected.tolerance(), want, actual, i, w, g, width)) {
                differing++;
                if (listed.size() < LISTED) {
                    listed.add("at " + index(want.shape(), i) + " expected " + describe(want, i, w, width)
                            + ", actual " + describe(actual, i, g, width));
                }
            }
        }
        if (differing == 0) {
            return Optional.empty();
        }
        return Optional.of(differing + " of " + n + " elements differ (" + expected.tolerance().describe() + "): "
                + String.join("; ", listed) + (differing > listed.size() ? "; ..." : ""));
    }

    private static boolean matches(Tolerance tolerance, Tensor want, Tensor got, long i, long w, long g, int width) {
        boolean floating = want.dtype().isFloating();
        boolean wantNaN = floating && Double.isNaN(want.getDouble(i));
        boolean gotNaN = floating && Double.isNaN(got.getDouble(i));
        if (wantNaN || gotNaN) {
            return wantNaN && gotNaN;
        }
        return switch (tolerance) {
            case Tolerance.Exact e -> w == g;
            case Tolerance.Ulps u -> {
                if (floating && Double.isInfinite(want.getDouble(i))) {
                    yield w == g;
                }
                yield ulpDistance(w, g, width, floating) <= u.maxUlps();
            }
        };
    }

    /**
     * The number of representable values between two elements: for a floating dtype the
     * sign-magnitude codes mapped onto a line (so -0 and +0 are 0 apart, and the distance crosses
     * zero correctly); for i32 the difference of the integers.
     */
    static long ulpDistance(long a, long b, int width, boolean floating) {
        return Math.abs(ordered(a, width, floating) - ordered(b, width, floating));
    }

    private static long ordered(long bits, int width, boolean floating) {
        int size = width * 8;
        long sign = 1L << (size - 1);
        if (!floating) {
            return (bits & sign) != 0 ? bits - (1L << size) : bits;
        }
        long magnitude = bits & (sign - 1);
        return (bits & sign) != 0 ? -magnitude : magnitude;
    }

    /** Element {@code i}'s bits, zero-extended, from little-endian storage of {@code width} bytes. */
    static long bits(byte[] bytes, long i, int width) {
        long v = 0;
        int base = Math.toIntExact(i * width);
        for (int k = width - 1; k >= 0; k--) {
            v = (v << 8) | (bytes[base + k] & 0xFF);
        }
        return v;
    }

    /** The value and the bits, e.g. {@code 2.5 (f32 0x40200000)} or {@code -3 (i32 0xfffffffd)}. */
    static String describe(Tensor t, long i, long bits, int width) {
        String value = t.dtype() == DType.I32 ? Integer.toString(t.getInt(i)) : Float.toString(t.getFloat(i));
        return value + " (" + t.dtype() + " 0x" + String.format("%0" + (2 * width) + "x", bits) + ")";
    }

    /** The multi-index of flat element {@code i}, e.g. {@code [1, 0]}. */
    static String index(Shape shape, long i) {
        long[] strides = shape.strides();
        List<Long> idx = new ArrayList<>();
        long rest = i;
        for (long s : strides) {
            idx.add(s == 0 ? 0 : rest / s);
            rest = s == 0 ? rest : rest % s;
        }
        return idx.toString();
    }
}
