package org.stagecheck.interp.bench;

/**
 * @param size     K = N of the square weight (4096 for a transformer layer's projection)
 * @param rows     M of the matmul case (the matvec case has M = 1)
 * @param threads  evaluator threads
 * @param repeats  timed repetitions per case (best is reported), after one warm-up
 * @param baseline ND4J or another comparison, or null
 */
public record BenchOptions(int size, int rows, int threads, int repeats, Baseline baseline) {
    public static BenchOptions defaults() {
        return new BenchOptions(4096, 64, Runtime.getRuntime().availableProcessors(), 5, null);
    }

    public BenchOptions withBaseline(Baseline b) {
        return new BenchOptions(size, rows, threads, repeats, b);
    }
}
