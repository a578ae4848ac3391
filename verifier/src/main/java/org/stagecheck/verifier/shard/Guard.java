package org.stagecheck.verifier.shard;

import java.util.Map;
import java.util.function.Function;
import org.stagecheck.spec.ir.Expr;

/**
 * A range test on one integer index: "the element named {@code var} lies in {@code [lo, hi)}"
 * (bounds {@link Long#MIN_VALUE} / {@link Long#MAX_VALUE} when open), as a {@code select}
 * condition writes it: comparisons ({@code ge}, {@code gt}, {@code le}, {@code lt}) of the index
 * plus a constant with a constant, joined by {@code and} (docs/verifier.md, "Sums over an index").
 *
 * <p>The test is read in exact arithmetic, but the evaluator compares i32 values that wrap: it
 * means what it says only for the index values {@code [exactLo, exactHi]} on which both sides of
 * every comparison stay within i32 ({@code ge(add(id, 2147483647), 2147483647)} is {@code id >= 0}
 * only at {@code id = 0}). {@link #exactOn} says whether that holds on an index's whole domain;
 * a guard that is not exact there is no guard.
 */
record Guard(String var, long lo, long hi, long exactLo, long exactHi) {
    private static final long I32_MIN = Integer.MIN_VALUE;
    private static final long I32_MAX = Integer.MAX_VALUE;

    Guard(String var, long lo, long hi) {
        this(var, lo, hi, I32_MIN, I32_MAX);
    }

    /** Whether the test means what it says for every value in {@code [from, to]} (clipped to i32: the index is an i32). */
    boolean exactOn(long from, long to) {
        return exactLo <= Math.max(from, I32_MIN) && Math.min(to, I32_MAX) <= exactHi;
    }

    /**
     * Whether the test means what it says on the whole domain of its index: {@code domain.apply(var)}
     * ({@code [lo, hi]}, inclusive) where it is known; else, for a value read from a tensor
     * ({@code v:}, a token id), the row numbers {@code [0, 2^31 - 1]} (a negative id faults in the
     * unsplit program's read, so no run compares the split there); else every i32.
     */
    boolean exactOver(Function<String, long[]> domain) {
        long[] d = domain.apply(var);
        if (d != null) {
            return exactOn(d[0], d[1]);
        }
        return var.startsWith("v:") ? exactOn(0, I32_MAX) : exactOn(I32_MIN, I32_MAX);
    }

    /** The range test {@code cond} makes, its operands' affine forms given by {@code affineOf}; null when it is none. */
    static Guard of(Expr cond, Function<Expr, Affine> affineOf) {
        if (!(cond instanceof Expr.Apply a) || a.args().size() != 2) {
            return null;
        }
        return switch (a.fn()) {
            case AND -> {
                Guard x = of(a.args().get(0), affineOf);
                Guard y = of(a.args().get(1), affineOf);
                yield x == null || y == null || !x.var.equals(y.var) ? null
                        : new Guard(x.var, Math.max(x.lo, y.lo), Math.min(x.hi, y.hi), Math.max(x.exactLo, y.exactLo), Math.min(x.exactHi, y.exactHi));
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
        long[] exact = {I32_MIN, I32_MAX};
        if (!inI32(x, var, exact) || !inI32(y, var, exact)) {
            return null;
        }
        Guard g = switch (a.fn()) {
            case GE -> k == 1 ? new Guard(var, -c, max) : new Guard(var, min, c + 1);
            case GT -> k == 1 ? new Guard(var, -c + 1, max) : new Guard(var, min, c);
            case LE -> k == 1 ? new Guard(var, min, -c + 1) : new Guard(var, c, max);
            case LT -> k == 1 ? new Guard(var, min, -c) : new Guard(var, c + 1, max);
            default -> null;
        };
        return g == null ? null : new Guard(g.var, g.lo, g.hi, exact[0], exact[1]);
    }

    /**
     * Narrows {@code exact} ({@code [lo, hi]} of {@code var}) to the values on which affine
     * {@code f} (in {@code var} alone, or constant) stays within i32; false when it depends on
     * anything else or no value is left.
     */
    private static boolean inI32(Affine f, String var, long[] exact) {
        long k = f.coefficients().getOrDefault(var, 0L);
        if (f.coefficients().size() > (k == 0 ? 0 : 1)) {
            return false;
        }
        long c = f.constant();
        if (k == 0) {
            return c >= I32_MIN && c <= I32_MAX;
        }
        // I32_MIN <= k*s + c <= I32_MAX solved for s in exact integer arithmetic: k*s >= A and k*s <= B
        long lo;
        long hi;
        try {
            long below = Math.subtractExact(I32_MIN, c);
            long above = Math.subtractExact(I32_MAX, c);
            lo = k > 0 ? Math.ceilDiv(below, k) : Math.ceilDiv(above, k);
            hi = k > 0 ? Math.floorDiv(above, k) : Math.floorDiv(below, k);
        } catch (ArithmeticException overflow) {
            return false;
        }
        exact[0] = Math.max(exact[0], lo);
        exact[1] = Math.min(exact[1], hi);
        return exact[0] <= exact[1];
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
