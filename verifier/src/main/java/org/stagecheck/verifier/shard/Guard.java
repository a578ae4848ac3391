package org.stagecheck.verifier.shard;

import java.util.Map;
import java.util.function.Function;
import org.stagecheck.spec.ir.Expr;

/**
 * A range test on one integer index: "the element named {@code var} lies in {@code [lo, hi)}"
 * (bounds {@link Long#MIN_VALUE} / {@link Long#MAX_VALUE} when open), as a {@code select}
 * condition writes it: comparisons ({@code ge}, {@code gt}, {@code le}, {@code lt}) of the index
 * plus a constant with a constant, joined by {@code and} (docs/verifier.md, "Sums over an index").
 */
record Guard(String var, long lo, long hi) {

    /** The range test {@code cond} makes, its operands' affine forms given by {@code affineOf}; null when it is none. */
    static Guard of(Expr cond, Function<Expr, Affine> affineOf) {
        if (!(cond instanceof Expr.Apply a) || a.args().size() != 2) {
            return null;
        }
        return switch (a.fn()) {
            case AND -> {
                Guard x = of(a.args().get(0), affineOf);
                Guard y = of(a.args().get(1), affineOf);
                yield x == null || y == null || !x.var.equals(y.var) ? null : new Guard(x.var, Math.max(x.lo, y.lo), Math.min(x.hi, y.hi));
            }
            case GE, GT, LE, LT -> compare(a, affineOf);
            default -> null;
        };
    }

    /** {@code x op y} as a range of the one source of {@code x - y} (coefficient 1 or -1). */
    private static Guard compare(Expr.Apply a, Function<Expr, Affine> affineOf) {
        Affine x = affineOf.apply(a.args().get(0));
        Affine y = affineOf.apply(a.args().get(1));
        if (x == null || y == null) {
            return null;
        }
        Affine d;
        try {
            d = x.plus(y.times(-1));
        } catch (ArithmeticException overflow) {
            return null;
        }
        if (d.coefficients().size() != 1) {
            return null;
        }
        Map.Entry<String, Long> only = d.coefficients().firstEntry();
        long k = only.getValue();
        long c = d.constant();
        if (k != 1 && k != -1) {
            return null;
        }
        // k*s + c compared with 0; with k = -1 the comparison turns around: -s + c >= 0 is s <= c
        String var = only.getKey();
        long min = Long.MIN_VALUE;
        long max = Long.MAX_VALUE;
        return switch (a.fn()) {
            case GE -> k == 1 ? new Guard(var, -c, max) : new Guard(var, min, c + 1);
            case GT -> k == 1 ? new Guard(var, -c + 1, max) : new Guard(var, min, c);
            case LE -> k == 1 ? new Guard(var, min, -c + 1) : new Guard(var, c, max);
            case LT -> k == 1 ? new Guard(var, min, -c) : new Guard(var, c + 1, max);
            default -> null;
        };
    }

    /** The index values {@code [lo, hi)} within {@code [from, to)}. */
    Slices within(long from, long to) {
        return Slices.of(Math.max(lo, from), Math.min(hi, to));
    }

    /** Whether every value in {@code s} passes the test. */
    boolean admits(Slices s) {
        return s.isEmpty() || Slices.of(lo, hi).union(s).equals(Slices.of(lo, hi));
    }

    String describe() {
        return "index " + var + " in [" + (lo == Long.MIN_VALUE ? "-inf" : lo) + "," + (hi == Long.MAX_VALUE ? "inf" : hi) + ")";
    }
}
