package org.stagecheck.verifier.shard;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.verifier.shard.Piecewise.Piece;

/**
 * The functions of the algebra on {@link Piecewise} forms of one parameter, as the evaluator
 * computes them on i32 (docs/semantics.md; docs/verifier.md, "Piecewise indices"). On each
 * interval of the arguments' common refinement every argument is one affine formula, and:
 * a sum, difference, negation or product by a constant is affine; a comparison holds on one
 * interval (a linear function is non-negative on a prefix or a suffix), so it splits the interval
 * in at most three; {@code max}/{@code min} pick one argument on each side of the crossing;
 * {@code select} picks a branch by the condition's 0 or 1; and {@code div}/{@code rem} by a
 * constant split the interval where the quotient changes.
 *
 * <p>i32: addition, subtraction, negation and product wrap, and wrapping commutes with them (both
 * are arithmetic modulo 2^32), so only the final value need lie within i32 ({@link Piecewise#of}
 * checks it). Comparisons, max/min, and div/rem do not commute with wrapping: their operands must
 * lie within i32 on the interval, or the form is refused. Division truncates toward zero and the
 * remainder has the dividend's sign ({@code div(x, c) = -div(-x, c)}, {@code rem(x, c) =
 * -rem(-x, c)}, {@code div(x, -m) = -div(x, m)}, {@code rem(x, -m) = rem(x, m)}); the dividend
 * {@code MIN_VALUE} is refused, and so is a divisor 0 (the evaluator faults).
 */
final class PiecewiseOps {
    private PiecewiseOps() {}

    /** {@code fn(args)}, or null when it is not piecewise affine in one parameter (or the types do not fit). */
    static Piecewise apply(Fn fn, List<Piecewise> args) {
        if (Piecewise.twoParameters(args)) {
            return null;
        }
        String var = Piecewise.oneParameter(args);
        boolean anyBool = args.stream().anyMatch(Piecewise::bool);
        boolean allBool = args.stream().allMatch(Piecewise::bool);
        return switch (fn) {
            case ADD, SUB, MUL, NEG, MAX, MIN -> anyBool ? null : map(var, false, args, at -> arithmetic(fn, at));
            case DIV, REM -> anyBool ? null : map(var, false, args, at -> divide(at[0], at[1], fn == Fn.REM));
            case EQ, NE, LT, LE, GT, GE -> anyBool ? null : map(var, true, args, at -> compare(fn, at[0], at[1]));
            case AND, OR, NOT -> allBool ? map(var, true, args, at -> List.of(logic(fn, at))) : null;
            case SELECT -> args.get(0).bool() && args.get(1).bool() == args.get(2).bool()
                    ? map(var, args.get(1).bool(), args, at -> List.of(at[at[0].c() != 0 ? 1 : 2])) : null;
            case ABS, EXP, LOG, SQRT, RSQRT, TANH, SIGMOID, RECIP, SIN, COS -> null;
        };
    }

    /** Each interval of the arguments' common refinement mapped to its pieces (sorted) by {@code op}; null when op refuses one. */
    private static Piecewise map(String var, boolean bool, List<Piecewise> args, Function<Piece[], List<Piece>> op) {
        List<Piece> out = new ArrayList<>();
        for (Piece[] at : Piecewise.refine(args)) {
            List<Piece> pieces = op.apply(at);
            if (pieces == null || out.size() + pieces.size() > 4 * Piecewise.MAX_PIECES) {
                return null;
            }
            out.addAll(pieces);
        }
        return Piecewise.tidy(var, bool, out);
    }

    private static Piece formula(Piece on, long k, long c) {
        return new Piece(on.lo(), on.hi(), k, c);
    }

    private static List<Piece> arithmetic(Fn fn, Piece[] at) {
        Piece x = at[0];
        Piece y = at.length > 1 ? at[1] : null;
        return switch (fn) {
            case ADD -> List.of(formula(x, Math.addExact(x.k(), y.k()), Math.addExact(x.c(), y.c())));
            case SUB -> List.of(formula(x, Math.subtractExact(x.k(), y.k()), Math.subtractExact(x.c(), y.c())));
            case NEG -> List.of(formula(x, Math.negateExact(x.k()), Math.negateExact(x.c())));
            case MUL -> x.k() == 0 ? List.of(formula(x, Math.multiplyExact(y.k(), x.c()), Math.multiplyExact(y.c(), x.c())))
                    : y.k() == 0 ? List.of(formula(x, Math.multiplyExact(x.k(), y.c()), Math.multiplyExact(x.c(), y.c()))) : null;
            case MAX, MIN -> {
                if (!x.inI32() || !y.inI32()) {
                    yield null;
                }
                // x - y >= 0 on one interval: max is x there, y elsewhere; min the other way round
                long[] xAbove = nonNegative(Math.subtractExact(x.k(), y.k()), Math.subtractExact(x.c(), y.c()), x.lo(), x.hi());
                yield fn == Fn.MAX ? split(x, xAbove, x, y) : split(x, xAbove, y, x);
            }
            default -> throw new IllegalArgumentException(fn.spelling() + " is no arithmetic of piecewise forms");
        };
    }

    /** A comparison of i32 values: the interval where it holds is 1, the rest 0. */
    private static List<Piece> compare(Fn fn, Piece x, Piece y) {
        if (!x.inI32() || !y.inI32()) {
            return null; // the i32 comparison of wrapped values is not the exact one
        }
        long k = Math.subtractExact(x.k(), y.k());
        long c = Math.subtractExact(x.c(), y.c());
        Piece yes = formula(x, 0, 1);
        Piece no = formula(x, 0, 0);
        return switch (fn) {
            case GE -> split(x, nonNegative(k, c, x.lo(), x.hi()), yes, no);
            case GT -> split(x, nonNegative(k, Math.subtractExact(c, 1), x.lo(), x.hi()), yes, no);
            case LE -> split(x, nonNegative(Math.negateExact(k), Math.negateExact(c), x.lo(), x.hi()), yes, no);
            case LT -> split(x, nonNegative(Math.negateExact(k), Math.subtractExact(Math.negateExact(c), 1), x.lo(), x.hi()), yes, no);
            case EQ, NE -> {
                long[] ge = nonNegative(k, c, x.lo(), x.hi());
                long[] le = nonNegative(Math.negateExact(k), Math.negateExact(c), x.lo(), x.hi());
                long[] eq = ge == null || le == null || Math.max(ge[0], le[0]) > Math.min(ge[1], le[1])
                        ? null : new long[] {Math.max(ge[0], le[0]), Math.min(ge[1], le[1])};
                yield fn == Fn.EQ ? split(x, eq, yes, no) : split(x, eq, no, yes);
            }
            default -> throw new IllegalArgumentException(fn.spelling() + " is no comparison");
        };
    }

    private static Piece logic(Fn fn, Piece[] at) {
        boolean x = at[0].c() != 0;
        boolean value = switch (fn) {
            case AND -> x && at[1].c() != 0;
            case OR -> x || at[1].c() != 0;
            case NOT -> !x;
            default -> throw new IllegalArgumentException(fn.spelling() + " is no logic");
        };
        return formula(at[0], 0, value ? 1 : 0);
    }

    /**
     * The values {@code s} in {@code [lo, hi]} where {@code k*s + c >= 0}, {@code [a, b]}, or null
     * when none: a suffix of the interval when k > 0, a prefix when k < 0.
     */
    static long[] nonNegative(long k, long c, long lo, long hi) {
        long a = lo;
        long b = hi;
        if (k > 0) {
            a = Math.max(lo, Math.ceilDiv(Math.negateExact(c), k));
        } else if (k < 0) {
            b = Math.min(hi, Math.floorDiv(c, Math.negateExact(k)));
        } else if (c < 0) {
            return null;
        }
        return a > b ? null : new long[] {a, b};
    }

    /** {@code on}'s interval with formula {@code inside} on {@code set} (null: empty) and {@code outside} elsewhere, in order. */
    private static List<Piece> split(Piece on, long[] set, Piece inside, Piece outside) {
        List<Piece> out = new ArrayList<>();
        if (set == null) {
            out.add(formula(on, outside.k(), outside.c()));
            return out;
        }
        if (set[0] > on.lo()) {
            out.add(new Piece(on.lo(), set[0] - 1, outside.k(), outside.c()));
        }
        out.add(new Piece(set[0], set[1], inside.k(), inside.c()));
        if (set[1] < on.hi()) {
            out.add(new Piece(set[1] + 1, on.hi(), outside.k(), outside.c()));
        }
        return out;
    }

    /** {@code div(x, y)} or {@code rem(x, y)} on x's interval, y a constant there. */
    private static List<Piece> divide(Piece x, Piece y, boolean remainder) {
        if (y.k() != 0 || y.c() == 0 || !y.inI32() || x.min() <= Piecewise.I32_MIN || x.max() > Piecewise.I32_MAX) {
            return null;
        }
        long m = Math.abs(y.c());
        long[] nonNegative = nonNegative(x.k(), x.c(), x.lo(), x.hi());
        List<Piece> out = new ArrayList<>();
        for (Piece part : split(x, nonNegative, formula(x, 1, 0), formula(x, -1, 0))) {
            boolean negative = part.k() < 0; // split marks the sign of x on each part by the formula +s or -s
            Piece dividend = negative ? new Piece(part.lo(), part.hi(), Math.negateExact(x.k()), Math.negateExact(x.c()))
                    : new Piece(part.lo(), part.hi(), x.k(), x.c());
            List<Piece> pieces = ofNonNegative(dividend, m, remainder);
            if (pieces == null) {
                return null;
            }
            boolean negate = negative != (!remainder && y.c() < 0);
            for (Piece p : pieces) {
                out.add(negate ? formula(p, Math.negateExact(p.k()), Math.negateExact(p.c())) : p);
            }
        }
        return out;
    }

    /**
     * {@code x / m} or {@code x % m} for {@code x >= 0} on its interval and {@code m > 0}: on the
     * values where {@code m*q <= x < m*(q+1)} the quotient is q and the remainder {@code x - m*q}.
     */
    private static List<Piece> ofNonNegative(Piece x, long m, boolean remainder) {
        long first = x.min() / m;
        long last = x.max() / m;
        if (last - first + 1 > Piecewise.MAX_PIECES) {
            return null;
        }
        List<Piece> out = new ArrayList<>();
        for (long q = first; q <= last; q++) {
            long floor = Math.multiplyExact(m, q);
            long[] above = nonNegative(x.k(), Math.subtractExact(x.c(), floor), x.lo(), x.hi()); // x >= m*q
            long[] below = above == null ? null
                    : nonNegative(Math.negateExact(x.k()), Math.subtractExact(floor + m - 1, x.c()), above[0], above[1]); // x <= m*q + m - 1
            if (below != null) {
                out.add(remainder ? new Piece(below[0], below[1], x.k(), Math.subtractExact(x.c(), floor)) : new Piece(below[0], below[1], 0, q));
            }
        }
        out.sort(Comparator.comparingLong(Piece::lo));
        return out;
    }
}
