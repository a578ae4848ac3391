package org.stagecheck.conformance;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.compare.Comparator;
import org.stagecheck.tensor.compare.Comparison;

/**
 * Compares a backend's tensor with a case's expectation under the {@link Tolerance} rule, judged
 * by the comparison engine ({@link Comparator}) under the rule's {@link Tolerance#policy()}, and
 * describes the first mismatches as value and stored bits (read through
 * {@link Tensor#littleEndianBytes()}, so every dtype's storage is shown alike).
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
        Comparison c = Comparator.compare(want, actual, expected.tolerance().policy());
        if (c.passed()) {
            return Optional.empty();
        }
        int width = want.dtype().byteSize();
        byte[] wantBytes = want.littleEndianBytes();
        byte[] gotBytes = actual.littleEndianBytes();
        List<String> listed = new ArrayList<>();
        for (long i : c.firstMismatches().subList(0, Math.min(LISTED, c.firstMismatches().size()))) {
            listed.add("at " + index(want.shape(), i) + " expected " + describe(want, i, bits(wantBytes, i, width), width)
                    + ", actual " + describe(actual, i, bits(gotBytes, i, width), width));
        }
        long differing = c.mismatches();
        return Optional.of(differing + " of " + want.size() + " elements differ (" + expected.tolerance().describe() + "): "
                + String.join("; ", listed) + (differing > listed.size() ? "; ..." : ""));
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
