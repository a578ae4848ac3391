package org.stagecheck.verifier.shard;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.function.Function;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;

/**
 * An integer {@code Scalar} result as a piecewise-affine function of one parameter over its
 * declared range (docs/verifier.md, "Piecewise indices"): on each piece {@code [lo, hi]} of the
 * parameter's values it is {@code k * param + c}. {@code select}, comparisons and their logic,
 * {@code rem}/{@code div} by a constant, {@code max}/{@code min} and affine arithmetic all map
 * such functions to such functions ({@link PiecewiseOps}), and the form is canonical (pieces
 * clipped to the declared range, neighbours with one formula merged), so two ways of writing one
 * function give one form: a KV cache slot written {@code select(ge(pos, W), pos - W, pos)},
 * {@code select(lt(pos, W), pos, pos - W)} or {@code rem(pos, W)} is the same two pieces where
 * {@code pos} lies in {@code [0, 2W)}.
 *
 * <p>{@code bool} marks a condition (pieces 0 or 1, as a BOOL is cast to i32). A constant has no
 * parameter ({@code var} null) and one piece over every value.
 */
record Piecewise(String var, boolean bool, List<Piece> pieces) {
    /** More pieces than this and the form is not followed (the value stays an opaque element). */
    static final int MAX_PIECES = 32;
    /** Expressions nested deeper than this are not followed. */
    private static final int MAX_DEPTH = 64;
    static final long I32_MIN = Integer.MIN_VALUE;
    static final long I32_MAX = Integer.MAX_VALUE;
    /** The prefix of a piecewise form's name as a source of an {@link Affine}. */
    static final String PREFIX = "pw:";

    /** {@code k * param + c} for the parameter's values in {@code [lo, hi]} (inclusive). */
    record Piece(long lo, long hi, long k, long c) {
        /** The value at {@code s}, exactly (throws {@link ArithmeticException} on overflow of a long). */
        long at(long s) {
            return Math.addExact(Math.multiplyExact(k, s), c);
        }

        long min() {
            return Math.min(at(lo), at(hi));
        }

        long max() {
            return Math.max(at(lo), at(hi));
        }

        /** Whether every value lies within i32, so the evaluator's wrapping arithmetic computes exactly it. */
        boolean inI32() {
            return min() >= I32_MIN && max() <= I32_MAX;
        }

        Piece on(long from, long to) {
            return new Piece(from, to, k, c);
        }

        boolean sameFormula(Piece o) {
            return k == o.k && c == o.c;
        }
    }

    static Piecewise constant(long c) {
        return new Piecewise(null, false, List.of(new Piece(Long.MIN_VALUE, Long.MAX_VALUE, 0, c)));
    }

    /**
     * The piecewise form of integer expression {@code e}, or null when it is none: its affine parts
     * given by {@code affineOf} (one parameter {@code p:name} at most, whose declared range
     * {@code rangeOf} gives, inclusive), the rest followed through {@link PiecewiseOps}.
     */
    static Piecewise of(Expr e, Function<Expr, Affine> affineOf, Function<String, long[]> rangeOf) {
        try {
            Piecewise p = walk(e, affineOf, rangeOf, 0);
            return p == null || p.bool || !p.pieces.stream().allMatch(Piece::inI32) ? null : p;
        } catch (ArithmeticException overflow) {
            return null;
        }
    }

    private static Piecewise walk(Expr e, Function<Expr, Affine> affineOf, Function<String, long[]> rangeOf, int depth) {
        if (depth > MAX_DEPTH) {
            return null;
        }
        Piecewise structural = switch (e) {
            case Expr.Apply a -> {
                List<Piecewise> args = new ArrayList<>();
                for (Expr x : a.args()) {
                    Piecewise p = walk(x, affineOf, rangeOf, depth + 1);
                    if (p == null) {
                        args = null;
                        break;
                    }
                    args.add(p);
                }
                yield args == null ? null : PiecewiseOps.apply(a.fn(), args);
            }
            case Expr.Cast c -> {
                Piecewise x = c.dtype() == DType.I32 ? walk(c.arg(), affineOf, rangeOf, depth + 1) : null;
                yield x == null ? null : tidy(x.var, false, x.pieces); // i32 to i32 keeps it; a BOOL is 0 or 1, cut as an integer
            }
            case Expr.IntConst i -> null;
            case Expr.ParamRef p -> null;
            case Expr.In in -> null;
            case Expr.FloatConst f -> null;
            case Expr.Index x -> null;
        };
        return structural != null ? structural : leaf(affineOf.apply(e), rangeOf);
    }

    /** An affine form as one piece: a constant, or one parameter's multiple over its declared range. */
    private static Piecewise leaf(Affine a, Function<String, long[]> rangeOf) {
        if (a == null) {
            return null;
        }
        if (a.coefficients().isEmpty()) {
            return constant(a.constant());
        }
        if (a.coefficients().size() != 1 || !a.coefficients().firstKey().startsWith("p:")) {
            return null;
        }
        String var = a.coefficients().firstKey();
        long[] d = rangeOf.apply(var);
        if (d == null || d[0] > d[1]) {
            return null;
        }
        return new Piecewise(var, false, List.of(new Piece(d[0], d[1], a.coefficients().firstEntry().getValue(), a.constant())));
    }

    /**
     * The common refinement of {@code args}: for each interval on which every one of them is one
     * formula, their pieces there; null when two follow different parameters.
     */
    static List<Piece[]> refine(List<Piecewise> args) {
        long lo = Long.MIN_VALUE;
        long hi = Long.MAX_VALUE;
        for (Piecewise p : args) {
            lo = Math.max(lo, p.pieces.getFirst().lo);
            hi = Math.min(hi, p.pieces.getLast().hi);
        }
        TreeSet<Long> starts = new TreeSet<>();
        starts.add(lo);
        for (Piecewise p : args) {
            for (Piece q : p.pieces) {
                if (q.lo > lo && q.lo <= hi) {
                    starts.add(q.lo);
                }
            }
        }
        List<Piece[]> out = new ArrayList<>();
        for (long s : starts) {
            Long next = starts.higher(s);
            long to = next == null ? hi : next - 1;
            Piece[] at = new Piece[args.size()];
            for (int i = 0; i < at.length; i++) {
                for (Piece q : args.get(i).pieces) {
                    if (q.lo <= s && s <= q.hi) {
                        at[i] = q.on(s, to);
                    }
                }
            }
            out.add(at);
        }
        return out;
    }

    /** The one parameter {@code args} follow: null when all are constants, and when two follow different ones. */
    static String oneParameter(List<Piecewise> args) {
        String var = null;
        for (Piecewise p : args) {
            if (p.var != null && var != null && !var.equals(p.var)) {
                return null;
            }
            var = p.var != null ? p.var : var;
        }
        return var;
    }

    /** Whether {@code args} follow two different parameters (their joint values are not followed). */
    static boolean twoParameters(List<Piecewise> args) {
        return args.stream().map(Piecewise::var).filter(v -> v != null).distinct().count() > 1;
    }

    /**
     * {@code pieces} (sorted, contiguous) in canonical form, or null when too many: for an integer
     * value of a parameter, its leftmost-longest pieces ({@link #longest}), which depend only on
     * the values, so two ways of writing one function give one form; for a condition or a
     * constant, neighbours with one formula merged (every piece of a condition is a constant 0 or
     * 1, and a constant has one piece).
     */
    static Piecewise tidy(String var, boolean bool, List<Piece> pieces) {
        List<Piece> kept = pieces.stream().filter(p -> p.lo <= p.hi).toList();
        if (kept.isEmpty()) {
            return null;
        }
        List<Piece> out = var != null && !bool ? longest(kept) : merged(var, kept);
        return out.size() > MAX_PIECES ? null : new Piecewise(var, bool, List.copyOf(out));
    }

    private static List<Piece> merged(String var, List<Piece> pieces) {
        List<Piece> out = new ArrayList<>();
        for (Piece p : pieces) {
            Piece last = out.isEmpty() ? null : out.getLast();
            if (last != null && last.sameFormula(p) && last.hi + 1 == p.lo) {
                out.set(out.size() - 1, last.on(last.lo, p.hi));
            } else {
                out.add(var == null ? p.on(Long.MIN_VALUE, Long.MAX_VALUE) : p);
            }
        }
        return out;
    }

    /**
     * The function {@code pieces} give, cut greedily from the left: each piece starts where the
     * last ended, takes the line through its first two values (a lone last value is that
     * constant) and runs while the function's values lie on it. The pieces depend on the values
     * alone: a value where two lines meet belongs to the piece on its left, a one-value piece on
     * a neighbour's line is absorbed ({@code select(eq(pos, 4), 0, rem(pos, 4))} is
     * {@code rem(pos, 4)}); and no decomposition has fewer pieces (each greedy piece ends no
     * earlier than the piece of any other decomposition that holds its start).
     */
    private static List<Piece> longest(List<Piece> pieces) {
        List<Piece> out = new ArrayList<>();
        long end = pieces.getLast().hi;
        int i = 0;
        long s = pieces.getFirst().lo;
        while (true) {
            while (pieces.get(i).hi < s) {
                i++;
            }
            long first = pieces.get(i).at(s);
            if (s == end) {
                out.add(new Piece(s, s, 0, first));
                return out;
            }
            int j = pieces.get(i).hi > s ? i : i + 1;
            long k = Math.subtractExact(pieces.get(j).at(s + 1), first);
            Piece line = new Piece(s, s + 1, k, Math.subtractExact(first, Math.multiplyExact(k, s)));
            long t = s + 1; // the function lies on the line over [s, t]
            while (t < end) {
                while (pieces.get(j).hi < t + 1) {
                    j++;
                }
                Piece next = pieces.get(j);
                if (next.sameFormula(line)) {
                    t = next.hi;
                } else if (next.at(t + 1) == line.at(t + 1)) {
                    t++; // two lines meet once: the value after is off the line, unless the next piece starts there
                } else {
                    break;
                }
            }
            out.add(line.on(s, t));
            if (t == end) {
                return out;
            }
            s = t + 1;
        }
    }

    /** This value as an affine form: the formula itself when one piece is left, else the source {@link #name()}. */
    Affine affine() {
        if (pieces.size() == 1) {
            Piece p = pieces.getFirst();
            return var == null || p.k == 0 ? Affine.of(p.c) : Affine.source(var, p.k).plus(Affine.of(p.c));
        }
        return Affine.source(name(), 1);
    }

    /**
     * The canonical text of the pieces, a source name: {@code pw:p:pos{0..3:1,0;4..5:1,-4}} is
     * {@code pos} for pos in [0, 3] and {@code pos - 4} in [4, 5]. Equal names are one function of
     * one parameter, so they hold one value in every run.
     */
    String name() {
        StringBuilder sb = new StringBuilder(PREFIX).append(var).append('{');
        for (Piece p : pieces) {
            sb.append(sb.charAt(sb.length() - 1) == '{' ? "" : ";").append(p.lo).append("..").append(p.hi).append(':').append(p.k).append(',').append(p.c);
        }
        return sb.append('}').toString();
    }

    /** The values taken, {@code [min, max + 1)}: half-open, as the ranges of named elements are kept. */
    long[] values() {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (Piece p : pieces) {
            min = Math.min(min, p.min());
            max = Math.max(max, p.max());
        }
        return new long[] {min, max + 1};
    }
}
