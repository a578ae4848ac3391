package org.stagecheck.cli;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.stagecheck.interp.tensor.Tensor;
import org.stagecheck.spec.ir.TensorDecl;

/**
 * Deterministic inputs for {@code run --random SEED}: the value of a tensor depends only on the
 * seed and the tensor's name, so two runs (and two machines) bind the same bytes. Floating
 * tensors draw uniformly from [-1, 1) (then rounded to the dtype); i32 tensors draw uniformly
 * from [0, {@value #INT_BOUND}), small enough to index the tables of the examples.
 */
final class RandomInputs {
    static final int INT_BOUND = 16;

    private RandomInputs() {}

    static Tensor make(TensorDecl t, long seed) {
        long h = seed;
        for (byte b : t.name().getBytes(StandardCharsets.UTF_8)) {
            h = h * 1_000_003L + b;
        }
        SplittableRandom r = new SplittableRandom(h);
        int n = (int) t.shape().elementCount();
        if (t.dtype().isInteger()) {
            int[] v = new int[n];
            for (int i = 0; i < n; i++) {
                v[i] = r.nextInt(INT_BOUND);
            }
            return Tensor.fromInts(t.shape(), v);
        }
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) (r.nextDouble() * 2 - 1);
        }
        return Tensor.fromFloats(t.dtype(), t.shape(), v);
    }
}
