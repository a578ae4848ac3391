package org.stagecheck.author.laws;

import java.util.Map;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.DType;

/**
 * Accumulates a law's comparisons: floats by their largest absolute difference (NaN on either
 * side only where both are NaN), integers exactly, each with the first difference remembered
 * for the explanation.
 */
final class Comparison {
    private final String law;
    private final double tolerance;
    private double maxAbs;
    private int compared;
    private String firstFailure;

    Comparison(String law, double tolerance) {
        this.law = law;
        this.tolerance = tolerance;
    }

    /** Records that a run failed: the law does not hold, whatever else agrees. */
    void fail(String why) {
        if (firstFailure == null) {
            firstFailure = why;
        }
        maxAbs = Double.NaN;
    }

    boolean failed() {
        return firstFailure != null;
    }

    /** Compares {@code actual} with {@code expected}, both whole tensors; {@code what} names them. */
    void compare(String what, Tensor expected, Tensor actual) {
        compare(what, expected, actual, tolerance);
    }

    /** As {@link #compare(String, Tensor, Tensor)} with a tolerance of its own for floats. */
    void compare(String what, Tensor expected, Tensor actual, double tol) {
        compared++;
        if (expected == null || actual == null) {
            fail(what + " is missing on the " + (expected == null ? "expected" : "actual") + " side");
            return;
        }
        if (!expected.shape().equals(actual.shape()) || expected.dtype() != actual.dtype()) {
            fail(what + " is " + actual.dtype() + actual.shape() + ", expected " + expected.dtype() + expected.shape());
            return;
        }
        if (expected.dtype() == DType.I32) {
            int[] e = expected.toInts();
            int[] a = actual.toInts();
            for (int i = 0; i < e.length; i++) {
                if (e[i] != a[i]) {
                    fail(what + "[" + i + "] is " + a[i] + ", expected " + e[i]);
                    return;
                }
            }
            return;
        }
        float[] e = expected.toFloats();
        float[] a = actual.toFloats();
        for (int i = 0; i < e.length; i++) {
            boolean bothNaN = Float.isNaN(e[i]) && Float.isNaN(a[i]);
            double d = bothNaN ? 0.0 : Math.abs((double) e[i] - (double) a[i]);
            if (Double.isNaN(d) || e[i] != a[i] && Float.isInfinite(e[i])) {
                fail(what + "[" + i + "] is " + a[i] + ", expected " + e[i]);
                return;
            }
            if (!Double.isNaN(maxAbs) && d > maxAbs) {
                maxAbs = d;
            }
            if (d > tol && firstFailure == null) {
                firstFailure = what + "[" + i + "] is " + a[i] + ", expected " + e[i] + " (|diff| " + d + " > " + tol + ")";
            }
        }
    }

    /** Compares every tensor of {@code expected} with the same name in {@code actual}; an empty {@code expected} fails. */
    void compareAll(String prefix, Map<String, Tensor> expected, Map<String, Tensor> actual) {
        for (Map.Entry<String, Tensor> e : expected.entrySet()) {
            compare(prefix + e.getKey(), e.getValue(), actual.get(e.getKey()));
        }
        if (expected.isEmpty()) {
            fail("nothing to compare");
        }
    }

    LawResult result(String whatWasCompared) {
        boolean holds = firstFailure == null && compared > 0;
        String line = holds ? whatWasCompared : whatWasCompared + "; first difference: "
                + (firstFailure == null ? "nothing was compared" : firstFailure);
        return new LawResult(law, holds, maxAbs, tolerance, line);
    }
}
