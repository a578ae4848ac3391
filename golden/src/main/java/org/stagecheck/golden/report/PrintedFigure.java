package org.stagecheck.golden.report;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.Locale;

/**
 * How the text report prints a "would pass with" figure: shortened for people, but rounded toward
 * the side on which the printed policy still passes, so that copying a figure from the report
 * never gives a policy that fails (a tolerance rounded down, or a correlation threshold rounded up,
 * could).
 */
final class PrintedFigure {
    private PrintedFigure() {
    }

    /** A tolerance (ATOL, RTOL, derived SCALE) to six significant digits, rounded up. */
    static String up(double v) {
        if (!Double.isFinite(v) || (v == Math.rint(v) && Math.abs(v) < 1e9)) {
            return TextReport.num(v);
        }
        BigDecimal d = new BigDecimal(v).round(new MathContext(6, RoundingMode.CEILING));
        return String.format(Locale.ROOT, "%.6g", d);
    }

    /** A {@code pcc MIN} threshold with nine decimals, rounded down. */
    static String down9(double v) {
        if (!Double.isFinite(v)) {
            return TextReport.num(v);
        }
        return new BigDecimal(v).setScale(9, RoundingMode.FLOOR).toPlainString();
    }

    /** A figure the printed policy must hold exactly (the RTOL an ATOL was measured at): the shortest spelling that reads back as {@code v}. */
    static String exact(double v) {
        if (!Double.isFinite(v) || (v == Math.rint(v) && Math.abs(v) < 1e9)) {
            return TextReport.num(v);
        }
        return Double.toString(v).toLowerCase(Locale.ROOT);
    }
}
