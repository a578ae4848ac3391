package org.stagecheck.tensor.compare;

import java.util.Locale;

import org.stagecheck.spec.ir.DType;

/**
 * How an actual output is judged against its expected value (brief, "Golden cases"; the
 * definitions, defaults and edge cases are in docs/golden.md, "Tolerance policies").
 *
 * <p>Every policy first requires the same shape and dtype and the same non-finite pattern: a NaN
 * matches only a NaN, an infinity only the infinity of the same sign. Then:
 * <ul>
 *   <li>{@link Exact}: every element bit-equal (so -0 differs from +0), NaN payloads included;</li>
 *   <li>{@link ExactAnyNaN}: every element bit-equal, except that a NaN matches any NaN (the
 *       conformance suite's rule: IEEE 754 fixes no NaN payload an operation produces);</li>
 *   <li>{@link Ulp}: every element within {@code maxUlps} units in the last place of the dtype;</li>
 *   <li>{@link AllClose}: {@code |actual - expected| <= atol + rtol * |expected|} element-wise;</li>
 *   <li>{@link Pcc}: Pearson correlation of the finite elements at least {@code min}; where either
 *       side is constant (correlation undefined) the output is judged by the dtype's default
 *       allclose instead, and an empty tensor never passes;</li>
 *   <li>{@link Derived}: {@code |actual - expected| <= scale * tolerance[i]}, with the per-element
 *       tolerance computed from the program (see {@code DerivedBounds}).</li>
 * </ul>
 */
public sealed interface Policy {

    /** Bit-equal. */
    record Exact() implements Policy {}

    /** Bit-equal, except that a NaN matches any NaN, whatever its sign and payload. */
    record ExactAnyNaN() implements Policy {}

    /** Within {@code maxUlps} ULPs of the dtype (for i32, an absolute difference). */
    record Ulp(long maxUlps) implements Policy {
        public Ulp {
            if (maxUlps < 0) {
                throw new IllegalArgumentException("a ULP tolerance is at least 0, not " + maxUlps);
            }
        }
    }

    /** {@code |a - e| <= atol + rtol |e|}. */
    record AllClose(double rtol, double atol) implements Policy {
        public AllClose {
            if (!(rtol >= 0) || !(atol >= 0) || Double.isInfinite(rtol) || Double.isInfinite(atol)) {
                throw new IllegalArgumentException("allclose tolerances are finite and at least 0, not rtol " + rtol + " atol " + atol);
            }
        }

        /** The default tolerances for {@code dtype} (torch.testing.assert_close's). */
        public static AllClose defaults(DType dtype) {
            FloatFormat f = FloatFormat.of(dtype);
            return new AllClose(f.defaultRtol(), f.defaultAtol());
        }
    }

    /** Pearson correlation coefficient at least {@code min}. */
    record Pcc(double min) implements Policy {
        public Pcc {
            if (!(min >= -1 && min <= 1)) {
                throw new IllegalArgumentException("a pcc threshold is in [-1, 1], not " + min);
            }
        }
    }

    /** Within {@code scale} times the per-element tolerance derived from the program. */
    record Derived(double scale) implements Policy {
        public Derived {
            if (!(scale > 0) || Double.isInfinite(scale)) {
                throw new IllegalArgumentException("a derived scale is finite and above 0, not " + scale);
            }
        }
    }

    /** The spelling {@link #parse} reads back: {@code exact}, {@code exact any-nan}, {@code ulp 2}, {@code allclose 1e-05 1e-08}, {@code pcc 0.999}, {@code derived}. */
    default String spelling() {
        return switch (this) {
            case Exact e -> "exact";
            case ExactAnyNaN e -> "exact any-nan";
            case Ulp u -> "ulp " + u.maxUlps();
            case AllClose a -> "allclose " + num(a.rtol()) + " " + num(a.atol());
            case Pcc p -> "pcc " + num(p.min());
            case Derived d -> d.scale() == 1 ? "derived" : "derived " + num(d.scale());
            case DefaultAllClose d -> "allclose";
        };
    }

    private static String num(double v) {
        return Double.toString(v).replace(".0E", "E").toLowerCase(Locale.ROOT).replaceAll("\\.0$", "");
    }

    /**
     * Reads a policy: {@code exact}, {@code exact any-nan}, {@code ulp N}, {@code allclose} (the dtype's defaults, resolved
     * when compared), {@code allclose RTOL ATOL}, {@code pcc MIN}, {@code derived} or
     * {@code derived SCALE}; words may also be separated by ':' or ','.
     *
     * @throws IllegalArgumentException naming what is wrong, for anything else
     */
    static Policy parse(String text) {
        String[] w = text.strip().toLowerCase(Locale.ROOT).split("[\\s:,=]+");
        return switch (w[0]) {
            case "exact" -> {
                if (w.length == 2 && w[1].equals("any-nan")) {
                    yield new ExactAnyNaN();
                }
                arity(w, 0, 0);
                yield new Exact();
            }
            case "ulp" -> {
                arity(w, 1, 1);
                yield new Ulp(PolicyNumbers.count(text, w[1], "N"));
            }
            case "allclose" -> {
                arity(w, 0, 2);
                if (w.length == 2) {
                    throw new IllegalArgumentException("allclose takes both RTOL and ATOL, or neither");
                }
                yield w.length == 1 ? new DefaultAllClose() : new AllClose(
                        PolicyNumbers.real(text, w[1], "RTOL", "a finite number at least 0", v -> v >= 0),
                        PolicyNumbers.real(text, w[2], "ATOL", "a finite number at least 0", v -> v >= 0));
            }
            case "pcc" -> {
                arity(w, 1, 1);
                yield new Pcc(PolicyNumbers.real(text, w[1], "MIN", "a correlation in [-1, 1]", v -> v >= -1 && v <= 1));
            }
            case "derived" -> {
                arity(w, 0, 1);
                yield new Derived(w.length == 1 ? 1 : PolicyNumbers.real(text, w[1], "SCALE", "a finite number above 0", v -> v > 0));
            }
            // the user's spelling: any other word is bad input
            default -> throw new IllegalArgumentException("unknown tolerance policy '" + w[0]
                    + "'; one of exact, exact any-nan, ulp N, allclose [RTOL ATOL], pcc MIN, derived [SCALE]");
        };
    }

    private static void arity(String[] w, int min, int max) {
        int n = w.length - 1;
        if (n < min || n > max) {
            throw new IllegalArgumentException("tolerance policy '" + w[0] + "' takes " + (min == max ? min : min + " to " + max)
                    + " number(s), not " + n);
        }
    }

    /** {@code allclose} with the compared dtype's defaults (resolved by {@link #resolve}). */
    record DefaultAllClose() implements Policy {}

    /** This policy with dtype-dependent defaults filled in for {@code dtype}. */
    default Policy resolve(DType dtype) {
        return this instanceof DefaultAllClose ? AllClose.defaults(dtype) : this;
    }
}
