package org.stagecheck.interp.bench;

import org.stagecheck.interp.eval.MatMulKernel;
import org.stagecheck.interp.eval.Parallel;
import org.stagecheck.tensor.Tensor;

/**
 * The interpreter's matrix-vector kernel timed on its own (the decode benchmark's side-by-side
 * figure with numpy's {@code x @ w}): the kernel stays inside interp, the caller gets a time.
 */
public final class MatvecBench {
    private MatvecBench() {
    }

    /**
     * Best of 30 (after 3 warm-up) of {@code x @ w} for a row vector {@code x} and an f32 matrix
     * {@code w} of {@code x.length} rows, on {@code threads} workers, in milliseconds: numpy's is
     * timed the same way, and on a shared machine the best of many is what reflects the kernel.
     */
    public static double bestMs(float[] x, Tensor w, int threads) {
        int n = w.shape().dim(1);
        double best = Double.MAX_VALUE;
        try (Parallel par = new Parallel(threads)) {
            for (int rep = 0; rep < 33; rep++) {
                float[] acc = new float[n];
                long t0 = System.nanoTime();
                MatMulKernel.multiply(x, w, 0, false, acc, 1, x.length, n, par);
                long t1 = System.nanoTime();
                if (rep >= 3) {
                    best = Math.min(best, (t1 - t0) / 1e6);
                }
            }
        }
        return best;
    }
}
