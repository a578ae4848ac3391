package org.stagecheck.author.nd4j;

import static org.assertj.core.api.Assertions.assertThat;

import org.stagecheck.tensor.Tensor;

/**
 * How the interpreter's f32 run of an authored program is compared with the float64 ND4J
 * reference (docs/author.md, "Second reference (ND4J)").
 *
 * <p>Tolerance: {@code |interp - reference| <= 1e-5 * max(1, max|reference|)} element-wise, over
 * the compared tensor (logits of one row, or one layer's cache). The f32 program rounds every
 * operation once (relative 6e-8) and accumulates dot products of up to 1408 terms through a few
 * dozen dependent operations per layer; the measured worst case is 3.6e-7 (tiny) and 1.3e-6
 * (small) relative to that scale, 28x and 8x below the bound (docs/author.md), while each
 * convention error tried moves the logits by orders of magnitude more
 * ({@link Nd4jConventionSensitivityTest}). Tighter than the author's first reference (1e-4):
 * an independent check should leave as little room as f32 allows.
 *
 * <p>Tokens: the interpreter's {@code next_token} must be the reference's arg-max (first index
 * of the maximum), or else a token whose reference logit is within the tolerance of the maximum
 * (the top two are then closer than f32 can separate).
 */
final class Agreement {
    static final double RELATIVE_TOLERANCE = 1e-5;

    private Agreement() {
    }

    static double tolerance(double[] reference) {
        double max = 1.0;
        for (double v : reference) {
            max = Math.max(max, Math.abs(v));
        }
        return RELATIVE_TOLERANCE * max;
    }

    /** max |actual[offset + i] - reference[i]|; NaN anywhere gives +Infinity. */
    static double maxAbsDiff(double[] reference, Tensor actual, long offset) {
        double worst = 0;
        for (int i = 0; i < reference.length; i++) {
            double d = Math.abs(actual.getDouble(offset + i) - reference[i]);
            worst = Double.isNaN(d) ? Double.POSITIVE_INFINITY : Math.max(worst, d);
        }
        return worst;
    }

    /** Asserts agreement within the tolerance and returns max |diff| / tolerance (for the report). */
    static double assertClose(String what, double[] reference, Tensor actual, long offset) {
        double diff = maxAbsDiff(reference, actual, offset);
        double tol = tolerance(reference);
        assertThat(diff).as("%s: max |interp - ND4J reference| = %g, tolerance %g", what, diff, tol)
                .isLessThanOrEqualTo(tol);
        return diff / tol;
    }

    static int argmax(double[] v) {
        int best = 0;
        for (int i = 1; i < v.length; i++) {
            if (v[i] > v[best]) {
                best = i;
            }
        }
        return best;
    }

    static void assertToken(String what, double[] referenceLogits, int token) {
        int expected = argmax(referenceLogits);
        if (token == expected) {
            return;
        }
        assertThat(token).as("%s: token %d is outside [0, %d)", what, token, referenceLogits.length)
                .isBetween(0, referenceLogits.length - 1);
        double gap = referenceLogits[expected] - referenceLogits[token];
        assertThat(gap).as("%s: interpreter chose token %d, reference arg-max %d; their reference logits differ by %g, above the tolerance",
                what, token, expected, gap).isLessThanOrEqualTo(tolerance(referenceLogits));
    }
}
