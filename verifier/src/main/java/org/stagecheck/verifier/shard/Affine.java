package org.stagecheck.verifier.shard;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.stagecheck.spec.ir.Expr;

/**
 * An integer position as {@code constant + sum(coefficient * source)}, sources named by text
 * (a parameter {@code p:pos}, or the value of a one-element buffer the checker cannot see
 * through), kept in one canonical form (docs/verifier.md, "Regions"): equal positions written
 * differently ({@code pos + pos} and {@code 2*pos}; a {@code Scalar} stage's {@code param(pos)}
 * read back through {@code @buffer} and {@code pos} itself) get one {@link Sym}, and a
 * parameter whose range holds one value is that constant.
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
                     java.util.function.IntFunction<String> sourceOf) {
        if (depth > MAX_DEPTH) {
            return null;
        }
        try {
            return switch (e) {
                case Expr.IntConst c -> of(c.value());
                case Expr.ParamRef p -> fixedParams.containsKey(p.name()) ? of(fixedParams.get(p.name())) : source("p:" + p.name(), 1);
                case Expr.In in -> in.index() < ins.size() && ins.get(in.index()) instanceof Val.Exact v && v.hidden() == null
                        ? (known.containsKey(v.term().id()) ? known.get(v.term().id()) : sourceOf(in.index(), sourceOf)) : null;
                case Expr.Cast c -> c.dtype().isInteger() ? of(c.arg(), ins, known, fixedParams, depth + 1, sourceOf) : null;
                case Expr.Apply a -> apply(a, ins, known, fixedParams, depth, sourceOf);
                case Expr.FloatConst f -> null;
                case Expr.Index x -> null;
            };
        } catch (ArithmeticException overflow) {
            return null;
        }
    }

    private static Affine sourceOf(int p, java.util.function.IntFunction<String> sourceOf) {
        String name = sourceOf.apply(p);
        return name == null ? null : source(name, 1);
    }

    private static Affine apply(Expr.Apply a, List<Val> ins, Map<Integer, Affine> known, Map<String, Long> fixedParams, int depth,
                                java.util.function.IntFunction<String> sourceOf) {
        List<Expr> args = a.args();
        Affine x = args.isEmpty() ? null : of(args.get(0), ins, known, fixedParams, depth + 1, sourceOf);
        Affine y = args.size() < 2 ? null : of(args.get(1), ins, known, fixedParams, depth + 1, sourceOf);
        return switch (a.fn()) {
            case ADD -> x == null || y == null ? null : x.plus(y);
            case SUB -> x == null || y == null ? null : x.plus(y.times(-1));
            case NEG -> x == null ? null : x.times(-1);
            case MUL -> x == null || y == null ? null : x.coefficients.isEmpty() ? y.times(x.constant) : y.coefficients.isEmpty() ? x.times(y.constant) : null;
            case DIV, MAX, MIN, REM, ABS, EXP, LOG, SQRT, RSQRT, TANH, SIGMOID, RECIP, SIN, COS, EQ, NE, LT, LE, GT, GE, AND, OR, NOT, SELECT -> null;
        };
    }
}
