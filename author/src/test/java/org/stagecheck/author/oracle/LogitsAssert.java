package org.stagecheck.author.oracle;

import static org.assertj.core.api.Assertions.assertThat;

/** Row-by-row logit comparisons: relative to the row's largest magnitude, or bit for bit. */
final class LogitsAssert {
    private LogitsAssert() {}

    static void close(double[] actual, double[] expected, double relative, String what) {
        assertThat(actual).as(what).hasSameSizeAs(expected);
        double scale = 0;
        for (double e : expected) {
            scale = Math.max(scale, Math.abs(e));
        }
        for (int i = 0; i < expected.length; i++) {
            assertThat(Math.abs(actual[i] - expected[i])).as("%s, logit %d: %s vs %s", what, i, actual[i], expected[i]).isLessThanOrEqualTo(relative * scale);
        }
    }

    static void close(double[][] actual, double[][] expected, double relative, String what) {
        assertThat(actual.length).as(what + ": rows").isEqualTo(expected.length);
        for (int p = 0; p < expected.length; p++) {
            close(actual[p], expected[p], relative, what + ", position " + p);
        }
    }

    static boolean identical(double[] a, double[] b) {
        return java.util.Arrays.equals(a, b);
    }
}
