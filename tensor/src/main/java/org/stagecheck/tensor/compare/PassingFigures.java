package org.stagecheck.tensor.compare;

/**
 * What one differing element needs of each tolerance kind for {@link Comparison.Minimal} to be
 * true: every figure is rounded up so that the element test, evaluated in floating point exactly
 * as {@link ChunkStats} evaluates it, passes with it. A quotient or difference rounded to nearest
 * may land just below the real value, and the test's own rounded product or sum then falls just
 * short of the error.
 */
final class PassingFigures {
    private PassingFigures() {
    }

    /**
     * The smallest RTOL of {@code allclose RTOL 0} this element needs, rounded up: r with
     * {@code r * absExpected >= absError} in real arithmetic, so also after rounding.
     * {@code absError} is positive; infinite when {@code absExpected} is 0.
     */
    static double rtol(double absError, double absExpected) {
        return absExpected == 0 ? Double.POSITIVE_INFINITY : quotientUp(absError, absExpected);
    }

    /**
     * The smallest ATOL of {@code allclose RTOL ATOL} this element needs, where {@code rtolTerm}
     * is the test's own {@code RTOL * |expected|}: at least {@code absError - rtolTerm} in real
     * arithmetic (0 when the RTOL term alone covers the error).
     */
    static double atol(double absError, double rtolTerm) {
        double a = absError - rtolTerm;
        if (!(a > 0)) {
            return 0;
        }
        // a > 0 means absError > rtolTerm >= 0, so Fast2Sum gives the rounding error of the subtraction exactly
        double lost = -rtolTerm - (a - absError);
        return lost > 0 ? Math.nextUp(a) : a;
    }

    /**
     * The smallest SCALE of {@code derived SCALE} this element needs, rounded up: 0 when any
     * scale covers it (an infinite tolerance), infinite when none does (a tolerance that is 0,
     * negative or NaN: the element is then judged exactly). {@code absError} is positive.
     */
    static double derivedScale(double absError, double tolerance) {
        if (!(tolerance > 0)) {
            return Double.POSITIVE_INFINITY;
        }
        if (tolerance == Double.POSITIVE_INFINITY) {
            return 0;
        }
        return quotientUp(absError, tolerance);
    }

    /**
     * {@code n / d} rounded up: the quotient rounded to nearest is within half a unit of the real
     * one, so one step up when its product falls short (the sign of the fused multiply-add is exact).
     */
    private static double quotientUp(double n, double d) {
        double q = n / d;
        return Double.isFinite(q) && Math.fma(q, d, -n) < 0 ? Math.nextUp(q) : q;
    }
}
