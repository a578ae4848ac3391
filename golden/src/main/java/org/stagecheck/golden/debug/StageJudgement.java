package org.stagecheck.golden.debug;

import org.stagecheck.tensor.compare.Comparator;
import org.stagecheck.tensor.compare.Comparison;
import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.tensor.Tensor;

/**
 * One value judged as a {@link Judge} says: by a value policy against the reference's f32 value,
 * or (stage-derived) against its float64 value within {@code factor} times its derived bound,
 * which is {@code Policy.Derived(factor)} with the bound as the per-element tolerance.
 */
final class StageJudgement {
    private StageJudgement() {
    }

    /**
     * @param expected the reference's value (value policy) or the float64 value (stage-derived)
     * @param bound    the derived bound of {@code expected} (stage-derived only; ignored otherwise)
     */
    static Comparison compare(Judge judge, Tensor expected, Tensor actual, Tensor bound) {
        return switch (judge) {
            case Judge.ByPolicy p -> Comparator.compare(expected, actual, p.policy());
            case Judge.StageDerived s -> Comparator.compare(expected, actual, new Policy.Derived(s.factor()), tolerance(bound));
        };
    }

    /** The value policy a judge compares elements by: its own, or {@code derived FACTOR}. */
    static Policy policyOf(Judge judge) {
        return switch (judge) {
            case Judge.ByPolicy p -> p.policy();
            case Judge.StageDerived s -> new Policy.Derived(s.factor());
        };
    }

    /**
     * {@code bound} as a tolerance: a NaN bound (the derivation broke down, e.g. on an infinite
     * value) cannot judge its element and is taken as infinite; {@link #unbounded} counts them.
     */
    static Tensor tolerance(Tensor bound) {
        if (unbounded(bound) == 0) {
            return bound;
        }
        double[] b = bound.toDoubles();
        for (int i = 0; i < b.length; i++) {
            if (Double.isNaN(b[i])) {
                b[i] = Double.POSITIVE_INFINITY;
            }
        }
        return Tensor.wrapDoubles(bound.dtype(), bound.shape(), b);
    }

    /** How many elements of {@code bound} are not finite: elements the judgement cannot bound. */
    static long unbounded(Tensor bound) {
        long n = 0;
        for (long i = 0; i < bound.size(); i++) {
            if (!Double.isFinite(bound.getDouble(i))) {
                n++;
            }
        }
        return n;
    }

    /**
     * How loose a bound is for its value: the largest bound over the largest finite magnitude of
     * the value (infinite when any bound element is not finite; for an all-zero value, 0 while
     * the bound is only underflow, else infinite). A
     * stage's own bound is a few unit roundoffs of its dtype; a chain's grows with its length and
     * conditioning.
     */
    static double looseness(Tensor value, Tensor bound) {
        double maxBound = 0;
        double maxValue = 0;
        for (long i = 0; i < bound.size(); i++) {
            double b = bound.getDouble(i);
            if (!Double.isFinite(b)) {
                return Double.POSITIVE_INFINITY;
            }
            maxBound = Math.max(maxBound, b);
            double v = Math.abs(value.getDouble(i));
            if (Double.isFinite(v)) {
                maxValue = Math.max(maxValue, v);
            }
        }
        if (maxValue == 0) {
            // an all-zero value: tight while its bound is only the underflow floors of its dtype
            return maxBound <= UNDERFLOW ? 0 : Double.POSITIVE_INFINITY;
        }
        return maxBound / maxValue;
    }

    /** A bound no larger than this on an all-zero value is underflow alone (the smallest subnormals), not looseness. */
    private static final double UNDERFLOW = 0x1p-100;
}
