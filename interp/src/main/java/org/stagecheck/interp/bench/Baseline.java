package org.stagecheck.interp.bench;

/**
 * An independent implementation timed next to the evaluator in the same run (ND4J, supplied
 * from the test classpath, since the evaluator itself carries no native code).
 */
public interface Baseline {
    String name();

    /** Seconds per {@code [m,k] x [k,n]} f32 product, best of {@code repeats}. */
    double matmulSeconds(float[] a, float[] w, int m, int k, int n, int repeats);
}
