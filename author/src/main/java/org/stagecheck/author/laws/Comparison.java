package org.stagecheck.author.laws;

import java.util.Map;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.compare.Comparator;
import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.spec.ir.DType;

/**
 * Accumulates a law's comparisons, each judged by the comparison engine ({@link Comparator}):
 * floats by their largest absolute difference ({@code allclose 0 TOL}: NaN on either side only
 * where both are NaN, an infinity only against itself), integers exactly, each with the first
 * difference remembered for the explanation.
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
        boolean integer = expected.dtype() == DType.I32;
        // |diff| <= tol is allclose with rtol 0; a NaN or infinite tol fails no finite element, as an ulp bound of any distance
        Policy policy = integer ? new Policy.Exact()
                : Double.isFinite(tol) ? new Policy.AllClose(0, tol) : new Policy.Ulp(Long.MAX_VALUE);
        org.stagecheck.tensor.compare.Comparison c = Comparator.compare(expected, actual, policy);
        if (!integer && !Double.isNaN(maxAbs) && c.maxAbs() != null && c.maxAbs().absError() > maxAbs) {
            maxAbs = c.maxAbs().absError();
        }
        if (c.firstMismatches().isEmpty()) {
            return;
        }
        long i = c.firstMismatches().getFirst();
        if (integer) {
            fail(what + "[" + i + "] is " + actual.getInt(i) + ", expected " + expected.getInt(i));
            return;
        }
        float e = expected.getFloat(i);
        float a = actual.getFloat(i);
        // a listed element with a non-finite side is a NaN/Inf disagreement: no tolerance covers it
        boolean nonFinite = !(Float.isFinite(e) && Float.isFinite(a));
        if (firstFailure == null) {
            firstFailure = what + "[" + i + "] is " + a + ", expected " + e
                    + (nonFinite ? "" : " (|diff| " + Math.abs((double) e - (double) a) + " > " + tol + ")");
        }
        if (c.nonFiniteMismatches() > 0) {
            maxAbs = Double.NaN;
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
