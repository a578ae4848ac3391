package org.stagecheck.golden.derive;

import org.stagecheck.backend.MathMode;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.tensor.Tensor;

/**
 * Error bounds of the accumulating ops (docs/golden.md, "Derived bounds"): a sum of n terms
 * computed in f32 in any order is within {@code gamma(n) * sum|term|} of the exact sum, with
 * {@code gamma(n) = n u / (1 - n u)} (Higham, Accuracy and Stability of Numerical Algorithms,
 * 2nd ed., section 3.1), to which the terms' own propagated errors add.
 */
final class ContractionBounds {
    private ContractionBounds() {
    }

    /** gamma(n) = n u / (1 - n u), infinite when n u reaches 1. */
    static double gamma(long n) {
        double nu = n * ExprBounds.U32;
        return nu >= 1 ? Double.POSITIVE_INFINITY : nu / (1 - nu);
    }

    /** The result of a matmul bound: the accumulator (the spill's new value) and the sum before output rounding. */
    record MatMulBound(double[] accValue, double[] accError) {}

    /**
     * {@code acc = spill + sum_k a[i,k] b[k,j]} per output element: with |a|, |b| the true
     * magnitudes and ea, eb their bounds, the propagated error is
     * {@code sum (|a|+ea)(|b|+eb) - |a||b|} and the accumulation's rounding
     * {@code gamma(K+1) (|spill| + e_spill + sum (|a|+ea)(|b|+eb)) + K * flushFloor}.
     *
     * @param spill, spillErr the accumulator's start (nullable: +0, exact)
     */
    static MatMulBound matmul(ComputeOp.MatMul mm, double[] a, double[] ea, double[] b, double[] eb,
                              int batches, boolean batchedB, int m, int k, int n,
                              double[] spill, double[] spillErr, MathMode mode) {
        int total = batches * m * n;
        double[] acc = new double[total];
        double[] mag = new double[total];
        double[] prop = new double[total];
        for (int p = 0; p < batches; p++) {
            int aOff = p * m * k;
            int bOff = batchedB ? p * k * n : 0;
            int cOff = p * m * n;
            for (int i = 0; i < m; i++) {
                for (int kk = 0; kk < k; kk++) {
                    int ai = mm.transposeA() ? aOff + kk * m + i : aOff + i * k + kk;
                    double x = a[ai];
                    double ax = Math.abs(x);
                    double ex = ea[ai];
                    for (int j = 0; j < n; j++) {
                        int bi = mm.transposeB() ? bOff + j * k + kk : bOff + kk * n + j;
                        double y = b[bi];
                        double ay = Math.abs(y);
                        double ey = eb[bi];
                        int o = cOff + i * n + j;
                        acc[o] = Math.fma(x, y, acc[o]);
                        double full = (ax + ex) * (ay + ey);
                        mag[o] += full;
                        prop[o] += full - ax * ay;
                    }
                }
            }
        }
        double g = gamma(k + 1L);
        double[] err = new double[total];
        for (int o = 0; o < total; o++) {
            double s0 = spill == null ? 0 : spill[o];
            double es = spillErr == null ? 0 : spillErr[o];
            acc[o] += s0;
            err[o] = es + prop[o] + g * (Math.abs(s0) + es + mag[o]) + k * mode.flushFloor();
        }
        return new MatMulBound(acc, err);
    }

    /** A reduce's true values and bounds along one axis (outer x len x inner layout). */
    record ReduceBound(double[] value, double[] error, boolean argmaxUncertain) {}

    static ReduceBound reduce(ReduceFn fn, Tensor x, Tensor ex, int outer, int len, int inner, MathMode mode) {
        int m = outer * inner;
        double[] v = new double[m];
        double[] e = new double[m];
        boolean uncertain = false;
        for (int o = 0; o < outer; o++) {
            for (int in = 0; in < inner; in++) {
                int base = o * len * inner + in;
                int out = o * inner + in;
                switch (fn) {
                    case SUM -> {
                        double s = 0;
                        double mag = 0;
                        double prop = 0;
                        for (int a = 0; a < len; a++) {
                            double xv = x.getDouble(base + a * inner);
                            double xe = ex.getDouble(base + a * inner);
                            s += xv;
                            mag += Math.abs(xv) + xe;
                            prop += xe;
                        }
                        v[out] = s;
                        e[out] = prop + gamma(Math.max(0, len - 1)) * mag + len * mode.flushFloor();
                    }
                    case MAX, MIN -> {
                        double r = fn == ReduceFn.MAX ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
                        double err = 0;
                        for (int a = 0; a < len; a++) {
                            double xv = x.getDouble(base + a * inner);
                            r = fn == ReduceFn.MAX ? Math.max(r, xv) : Math.min(r, xv);
                            err = Math.max(err, ex.getDouble(base + a * inner));
                        }
                        v[out] = r;
                        e[out] = err;
                    }
                    case ARGMAX -> {
                        int best = 0;
                        for (int a = 1; a < len; a++) {
                            if (x.getDouble(base + a * inner) > x.getDouble(base + best * inner)) {
                                best = a;
                            }
                        }
                        double top = x.getDouble(base + best * inner);
                        double topErr = ex.getDouble(base + best * inner);
                        for (int a = 0; a < len; a++) {
                            double slack = topErr + ex.getDouble(base + a * inner);
                            if (a != best && slack > 0 && top - x.getDouble(base + a * inner) <= slack) {
                                uncertain = true;
                            }
                        }
                        v[out] = best;
                        e[out] = 0;
                    }
                }
            }
        }
        return new ReduceBound(v, e, uncertain);
    }
}
