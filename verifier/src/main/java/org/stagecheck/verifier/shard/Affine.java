package org.stagecheck.verifier.shard;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;

/**
 * An integer position as {@code constant + sum(coefficient * source)}, sources named by text
 * (a parameter {@code p:pos}, or the value of a one-element buffer the checker cannot see
 * through), kept in one canonical form (docs/verifier.md, "Regions"): equal positions written
 * differently ({@code pos + pos} and {@code 2*pos}; a {@code Scalar} stage's {@code param(pos)}
 * read back through {@code @buffer} and {@code pos} itself) get one {@link Sym}, and a
 * parameter whose range holds one value is that constant. A {@code rem} or {@code div} by a
 * constant is affine where the ranges of the sources fix its quotient's varying part
 * ({@link #divided}: {@code rem(pos, ctx)} is {@code pos} for {@code pos} in {@code [0, ctx)}).
 */
record Affine(long constant, TreeMap<String, Long> coefficients) {
    /** Scalar expressions nested deeper than this are not followed (they stay opaque values). */
    private static final int MAX_DEPTH = 64;

    static Affine of(long c) {
        return new Affine(c, new TreeMap<>());
    }

    static Affine source(String name, long coefficient) {
        TreeMap<String, Long> m = new TreeMap<>();
        m.put(name, coefficient);
        return new Affine(0, m).normal();
    }

    Affine plus(Affine o) {
        TreeMap<String, Long> m = new TreeMap<>(coefficients);
        o.coefficients.forEach((k, v) -> m.merge(k, v, Math::addExact));
        return new Affine(Math.addExact(constant, o.constant), m).normal();
    }

    Affine times(long k) {
        TreeMap<String, Long> m = new TreeMap<>();
        coefficients.forEach((s, v) -> m.put(s, Math.multiplyExact(v, k)));
        return new Affine(Math.multiplyExact(constant, k), m).normal();
    }

    private Affine normal() {
        coefficients.values().removeIf(v -> v == 0);
        return this;
    }

    /** The position: the constant and the canonical text of the sources. */
    Sym sym() {
        StringBuilder sb = new StringBuilder();
        coefficients.forEach((s, v) -> sb.append(sb.isEmpty() ? "" : "+").append(v).append('*').append(s));
        return sb.isEmpty() ? Sym.of(constant) : new Sym(constant, sb.toString());
    }

    /**
     * The values this form takes, {@code [lo, hi]} (inclusive), when every source has a known range
     * ({@code rangeOf}: inclusive bounds, or null when unknown); else null. Exact for independent
     * sources, and an over-approximation (a box around the reachable values) otherwise.
     *
     * @throws ArithmeticException when a bound overflows a long
     */
    long[] range(Function<String, long[]> rangeOf) {
        long lo = constant;
        long hi = constant;
        for (Map.Entry<String, Long> e : coefficients.entrySet()) {
            long[] r = rangeOf.apply(e.getKey());
            if (r == null) {
                return null;
            }
            long k = e.getValue();
            long a = Math.multiplyExact(k, r[0]);
            long b = Math.multiplyExact(k, r[1]);
            lo = Math.addExact(lo, Math.min(a, b));
            hi = Math.addExact(hi, Math.max(a, b));
        }
        return new long[] {lo, hi};
    }

    /**
     * The affine form of a {@code Scalar} result over parameters and integer constants (inputs
     * whose values have one too), or null when it is not affine (a product of two unknowns, a
     * division, a comparison, anything else).
     */
    static Affine of(Expr e, List<Val> ins, Map<Integer, Affine> known, Map<String, Long> fixedParams, int depth) {
        return of(e, ins, known, fixedParams, depth, p -> null);
    }

    /**
     * The same, where an input whose value has no affine form is the source {@code sourceOf(p)}
     * (the element a one-element integer buffer holds, docs/verifier.md "Sums over an index"), or
     * makes the result not affine when that is null.
     */
    static Affine of(Expr e, List<Val> ins, Map<Integer, Affine> known, Map<String, Long> fixedParams, int depth,
                     IntFunction<String> sourceOf) {
        return of(e, ins, known, fixedParams, depth, sourceOf, s -> null);
    }

    /**
     * The same, where {@code rangeOf} gives the values a source can take (inclusive, or null when
     * unknown), so a {@code rem} or {@code div} by a constant whose quotient those ranges fix is
     * affine too ({@link #divided}).
     */
    static Affine of(Expr e, List<Val> ins, Map<Integer, Affine> known, Map<String, Long> fixedParams, int depth,
                     IntFunction<String> sourceOf, Function<String, long[]> rangeOf) {
        if (depth > MAX_DEPTH) {
            return null;
        }
        try {
            return switch (e) {
                case Expr.IntConst c -> of(c.value());
                case Expr.ParamRef p -> fixedParams.containsKey(p.name()) ? of(fixedParams.get(p.name())) : source("p:" + p.name(), 1);
                case Expr.In in -> in.index() < ins.size() && ins.get(in.index()) instanceof Val.Exact v && v.hidden() == null
                        ? (known.containsKey(v.term().id()) ? known.get(v.term().id()) : sourceOf(in.index(), sourceOf)) : null;
                case Expr.Cast c -> c.dtype().isInteger() ? of(c.arg(), ins, known, fixedParams, depth + 1, sourceOf, rangeOf) : null;
                case Expr.Apply a -> apply(a, ins, known, fixedParams, depth, sourceOf, rangeOf);
                case Expr.FloatConst f -> null;
                case Expr.Index x -> null;
            };
        } catch (ArithmeticException overflow) {
            return null;
        }
    }

    private static Affine sourceOf(int p, IntFunction<String> sourceOf) {
        String name = sourceOf.apply(p);
        return name == null ? null : source(name, 1);
    }

    private static Affine apply(Expr.Apply a, List<Val> ins, Map<Integer, Affine> known, Map<String, Long> fixedParams, int depth,
                                IntFunction<String> sourceOf, Function<String, long[]> rangeOf) {
        List<Expr> args = a.args();
        Affine x = args.isEmpty() ? null : of(args.get(0), ins, known, fixedParams, depth + 1, sourceOf, rangeOf);
        Affine y = args.size() < 2 ? null : of(args.get(1), ins, known, fixedParams, depth + 1, sourceOf, rangeOf);
        return switch (a.fn()) {
            case ADD -> x == null || y == null ? null : x.plus(y);
            case SUB -> x == null || y == null ? null : x.plus(y.times(-1));
            case NEG -> x == null ? null : x.times(-1);
            case MUL -> x == null || y == null ? null : x.coefficients.isEmpty() ? y.times(x.constant) : y.coefficients.isEmpty() ? x.times(y.constant) : null;
            case DIV, REM -> x == null || y == null || !y.coefficients.isEmpty() ? null : divided(x, y.constant, a.fn() == Fn.REM, rangeOf);
            case MAX, MIN, ABS, EXP, LOG, SQRT, RSQRT, TANH, SIGMOID, RECIP, SIN, COS, EQ, NE, LT, LE, GT, GE, AND, OR, NOT, SELECT -> null;
        };
    }

    /**
     * {@code rem(x, c)} ({@code remainder}) or {@code div(x, c)} as an affine form, or null when
     * the ranges of x's sources do not fix it. Integer division truncates toward zero and the
     * remainder has the dividend's sign (docs/semantics.md), so for x of one sign over its whole
     * range: with {@code m = |c|}, write {@code x = m*Q + R}, Q the sources whose coefficients m
     * divides (and the constant's floor quotient), R the rest. Where x >= 0, {@code x / m =
     * Q + floor(R / m)}, and when R's range lies within one multiple of m, {@code [k*m, (k+1)*m)},
     * the quotient is {@code Q + k} and the remainder {@code R - k*m} for every value in range;
     * {@code div(x, -m) = -div(x, m)} and {@code rem(x, -m) = rem(x, m)}; where x <= 0, both are
     * those of {@code -x}, negated. x must lie within 32 bits (with no {@code MIN_VALUE}), so the
     * evaluator's wrap-around integer arithmetic, which equals the exact value modulo 2^32,
     * computes exactly x.
     */
    static Affine divided(Affine x, long c, boolean remainder, Function<String, long[]> rangeOf) {
        if (c == 0 || c == Long.MIN_VALUE) {
            return null;
        }
        long[] whole = x.range(rangeOf);
        if (whole == null || whole[0] <= Integer.MIN_VALUE || whole[1] > Integer.MAX_VALUE) {
            return null;
        }
        if (whole[0] < 0) {
            if (whole[1] > 0) {
                return null; // the dividend changes sign: truncation is no floor on one side
            }
            Affine negated = divided(x.times(-1), c, remainder, rangeOf);
            return negated == null ? null : negated.times(-1);
        }
        long m = Math.abs(c);
        TreeMap<String, Long> q = new TreeMap<>();
        TreeMap<String, Long> r = new TreeMap<>();
        x.coefficients.forEach((s, v) -> {
            if (v % m == 0) {
                q.put(s, v / m);
            } else {
                r.put(s, v);
            }
        });
        Affine quotientPart = new Affine(Math.floorDiv(x.constant, m), q).normal();
        Affine rest = new Affine(Math.floorMod(x.constant, m), r).normal();
        long[] restRange = rest.range(rangeOf);
        if (restRange == null) {
            return null;
        }
        long k = Math.floorDiv(restRange[0], m);
        if (Math.floorDiv(restRange[1], m) != k) {
            return null; // the rest crosses a multiple of m: the quotient varies with it
        }
        if (remainder) {
            return rest.plus(of(Math.negateExact(Math.multiplyExact(k, m))));
        }
        Affine quotient = quotientPart.plus(of(k));
        return c < 0 ? quotient.times(-1) : quotient;
    }
}
