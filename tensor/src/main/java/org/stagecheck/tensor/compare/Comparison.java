package org.stagecheck.tensor.compare;

import java.util.List;

import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;

/**
 * Everything one comparison of an actual tensor with its expected value found (brief, "Golden
 * cases"): whether it passed under {@link #policy()}, how many elements disagree, the worst
 * elements, the ULP histogram, the correlation and the smallest tolerance of each kind that would
 * have passed. Made by {@link Comparator#compare}; immutable.
 *
 * @param policy        the policy judged by, with dtype defaults resolved
 * @param passed        whether the actual output passes the policy
 * @param problem       why the comparison could not be made or failed outright (shape, dtype,
 *                      non-finite disagreement, undefined correlation, missing bound), or null
 * @param dtype         the expected dtype
 * @param shape         the expected shape
 * @param elements      number of elements compared (0 when shapes differ)
 * @param mismatches    elements outside the policy's per-element test (for pcc: outside the
 *                      dtype's default allclose, for information)
 * @param nonFiniteMismatches elements where exactly one side is NaN, or infinities differ
 * @param maxAbs        the element with the largest |actual - expected| (null when nothing was compared)
 * @param maxRel        the element with the largest |actual - expected| / |expected| (null likewise)
 * @param ulpHistogram  counts of ULP distances per {@link UlpBucket}, non-finite mismatches excluded
 * @param pcc           Pearson correlation of the finite element pairs; NaN when undefined
 * @param minimal       the smallest tolerance of each kind that would have passed
 * @param firstMismatches the flat indices of the first {@link #LISTED} (at most) elements counted in
 *                      {@code mismatches}, ascending, for reports that name them
 */
public record Comparison(Policy policy, boolean passed, String problem, DType dtype, Shape shape,
                         long elements, long mismatches, long nonFiniteMismatches,
                         Worst maxAbs, Worst maxRel, List<UlpBucket> ulpHistogram, double pcc,
                         Minimal minimal, List<Long> firstMismatches) {
    /** How many failing elements a comparison names ({@link #firstMismatches()}). */
    public static final int LISTED = 3;

    public Comparison {
        ulpHistogram = List.copyOf(ulpHistogram);
        firstMismatches = List.copyOf(firstMismatches);
    }

    /**
     * One element: its multi-index in the expected shape, both values and its errors.
     *
     * @param relError {@code |a - e| / |e|}; infinite when e is 0 and a is not
     * @param ulps     ULP distance in the dtype; {@link Long#MAX_VALUE} for a non-finite mismatch
     */
    public record Worst(long flatIndex, List<Long> index, double expected, double actual,
                        double absError, double relError, long ulps) {
        public Worst {
            index = List.copyOf(index);
        }
    }

    /**
     * One bar of the ULP histogram: elements whose ULP distance d has {@code low <= d <= high}.
     */
    public record UlpBucket(long low, long high, long count) {
        /** A short label: {@code 0}, {@code 1}, {@code 3-4}, {@code >=2^31}. */
        public String label() {
            if (high == Long.MAX_VALUE) {
                return ">=" + low;
            }
            return low == high ? Long.toString(low) : low + "-" + high;
        }
    }

    /**
     * The smallest tolerance of each kind under which this actual output would have passed;
     * infinite (or {@link Long#MAX_VALUE}) when none would, e.g. after a non-finite mismatch.
     * Every figure is true: re-compared under it, the output passes (figures are rounded up from
     * the real quotient or difference, {@code MinimalPassingTest}), and it is the least such
     * value up to that rounding (a figure 1% smaller fails, and {@code ulp N-1} fails).
     *
     * @param ulps         the smallest {@code ulp N}
     * @param atol         the smallest {@code allclose 0 ATOL}
     * @param rtol         the smallest {@code allclose RTOL 0}
     * @param atolAtRtol   the smallest ATOL of {@code allclose RTOL ATOL} at {@link #rtolUsed}
     * @param rtolUsed     the rtol that {@code atolAtRtol} assumes (the policy's, else the dtype default)
     * @param pcc          the largest {@code pcc MIN} that would pass (the measured correlation); NaN when
     *                     undefined or when no pcc passes (a non-finite mismatch)
     * @param derivedScale the smallest {@code derived SCALE}; NaN when no derived tolerance was given; 0 when
     *                     any scale passes; infinite when none does (an element that differs where the
     *                     tolerance is 0 or NaN)
     */
    public record Minimal(long ulps, double atol, double rtol, double atolAtRtol, double rtolUsed,
                          double pcc, double derivedScale) {}

    /** A one-line summary: PASS/FAIL, policy, mismatches, worst element. */
    public String summary() {
        StringBuilder b = new StringBuilder(passed ? "PASS" : "FAIL");
        b.append(" [").append(policy.spelling()).append("] ").append(dtype).append(shape);
        if (problem != null) {
            b.append(": ").append(problem);
        }
        if (elements == 0 && mismatches > 0) {
            // refused before any element was compared (a shape or dtype that differs): no count to give
            b.append("; no element compared");
        } else {
            b.append("; ").append(mismatches).append(" of ").append(elements).append(" elements mismatch");
        }
        if (maxAbs != null) {
            b.append(String.format(java.util.Locale.ROOT, "; max abs error %.4g at %s (expected %s, actual %s)",
                    maxAbs.absError(), maxAbs.index(), fmt(maxAbs.expected()), fmt(maxAbs.actual())));
        }
        return b.toString();
    }

    static String fmt(double v) {
        return Double.isFinite(v) && v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v)
                : String.format(java.util.Locale.ROOT, "%.9g", v);
    }
}
