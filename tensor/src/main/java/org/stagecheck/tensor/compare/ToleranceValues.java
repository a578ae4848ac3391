package org.stagecheck.tensor.compare;

import java.nio.ByteBuffer;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Storage;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.NpyReader;
import org.stagecheck.tensor.npy.TensorFileException;

/**
 * The values of a per-element tolerance read from a file (a golden case's, which anyone may
 * edit): finite and at least 0. A NaN or negative one fails every element it bounds and reads as
 * a tolerance of 0 in the report; an infinite one passes any value. The file is read range by
 * range, as a comparison reads it, so its size needs no buffer of its own.
 */
public final class ToleranceValues {
    private static final int RANGE = 1 << 20;

    private ToleranceValues() {
    }

    /**
     * @throws TensorFileException naming the file and its first unusable element, or when the
     *                             file cannot be read
     */
    public static void check(Operand.NpyFile tolerance) throws TensorFileException {
        long n = tolerance.size();
        int capacity = (int) Math.min(n, RANGE);
        if (capacity == 0) {
            return;
        }
        try (NpyReader reader = NpyReader.open(tolerance.path(), tolerance.declared())) {
            Storage buffer = reader.allocate(capacity);
            ByteBuffer bytes = reader.buffer(capacity);
            Tensor window = Tensor.wrap(tolerance.dtype(), Shape.of(capacity), buffer);
            for (long from = 0; from < n; from += capacity) {
                int count = (int) Math.min(capacity, n - from);
                reader.read(from, count, buffer, bytes);
                for (int i = 0; i < count; i++) {
                    double v = window.getDouble(i);
                    if (!(v >= 0) || Double.isInfinite(v)) {
                        throw new TensorFileException(tolerance.path() + ": element " + (from + i) + " of the tolerance is " + v
                                + "; a tolerance is finite and at least 0");
                    }
                }
            }
        }
    }
}
