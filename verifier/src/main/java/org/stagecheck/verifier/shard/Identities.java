package org.stagecheck.verifier.shard;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;

/**
 * The identities of the term algebra beyond canonical sums (docs/verifier.md, "Monotone functions
 * and rescaled maxima"), applied when a term is built so that two programs computing one value in
 * two ways build one term:
 *
 * <ul>
 *   <li>a reduction takes out what does not vary along its axis: {@code sum_j(x_j * y) = sum_j(x_j) * y}
 *       and {@code max_j(min(x_j, k)) = min(max_j(x_j), k)} for any values; for floats only (integers
 *       wrap and truncate) {@code sum_j(x_j / y) = sum_j(x_j) / y}, {@code max_j(x_j + k) = max_j(x_j) + k},
 *       {@code max_j(f(x_j)) = f(max_j(x_j))} for monotone increasing {@code f}, and
 *       {@code max_j(-x_j) = -min_j(x_j)};</li>
 *   <li>a matrix product takes out a row scale of its left operand: {@code (x * y) @ v = (x @ v) * y},
 *       {@code (x / y) @ v = (x @ v) / y}, {@code y} constant along the contraction axis;</li>
 *   <li>{@code exp} of a sum in which a term and its negation cancel is {@code exp} of the rest
 *       ({@code exp(m - m) = 1});</li>
 *   <li>rescale factors {@code exp(a * (m_c - M))} (a chip's local maximum against the completed one,
 *       {@link RescaleFactors}) multiply by adding their powers, and cancel at power 0:
 *       {@code exp(x - m_c) * exp(m_c - M) = exp(x - M)}.</li>
 * </ul>
 *
 * All but the monotone ones hold up to rounding only, like a re-associated sum; the monotone ones
 * are exact (docs/verifier.md gives each argument).
 */
final class Identities {
    private final Terms terms;
    private final Ops ops;
    private final RescaleFactors factors;
    static final java.util.Set<String> RECORDED = java.util.Set.of("exp", "tanh", "sigmoid", "mul", "div");
    /** Increasing on the whole real line, and monotone after rounding (docs/verifier.md). */
    private static final java.util.Set<String> INCREASING = java.util.Set.of("exp", "tanh", "sigmoid");

    record Applied(String name, List<Term> args) {}

    Identities(Terms terms, Ops ops, RescaleFactors factors) {
        this.terms = terms;
        this.ops = ops;
        this.factors = factors;
    }

    /**
     * The operation and arguments of {@code t} when it is a plain term of a {@link #RECORDED}
     * operation, else null: read from the term itself ({@link Term#opName}), so nothing is kept
     * per term.
     */
    private static Applied applied(Term t) {
        String name = t.opName();
        return name != null && RECORDED.contains(name) ? new Applied(name, List.of(t.opArgs())) : null;
    }

    /** Whether {@code t} is a plain term of an {@link #INCREASING} function of one argument. */
    private static boolean increasingOfOne(Term t) {
        return t instanceof Term.Op o && o.arity() == 1 && INCREASING.contains(o.opName());
    }

    /** The argument of {@code t} when it is a monotone function ({@link #INCREASING}, or a negation) of one term; else null. */
    Term elementwiseArgument(Term t) {
        if (increasingOfOne(t)) {
            return ((Term.Op) t).arg(0);
        }
        return terms.negationOf(t);
    }

    /** The function {@code t} applies to its argument ({@link #elementwiseArgument}), applied to {@code arg}. */
    Term reapply(Term t, Term arg) {
        String name = t.opName();
        return ops.op(name != null && INCREASING.contains(name) ? name : "neg", List.of(arg));
    }

    // ------------------------------------------------------------------ exp

    /** {@code exp(arg)} with terms that cancel in {@code arg} (a sum, or a sum times a constant) removed; {@code exp(0) = 1}. */
    Term exp(Term arg) {
        Term reduced = cancelled(arg);
        if (reduced == null) {
            return terms.unbounded("cf:1.0", "1.0", arg.rank());
        }
        return ops.op("exp", List.of(reduced));
    }

    /** {@code t} with each pair {@code x, neg(x)} of a sum removed; null when nothing is left (zero). */
    private Term cancelled(Term t) {
        if (t.leafKey().equals("cf:0.0") || t.leafKey().equals("cf:-0.0")) {
            return null;
        }
        Terms.Flat f = terms.flat(t);
        if (f != null && f.op().equals("sum")) {
            List<Term> left = new ArrayList<>(f.parts());
            boolean removed = false;
            for (int i = 0; i < left.size(); i++) {
                Term x = left.get(i);
                Term neg = terms.negationOf(x);
                for (int j = i + 1; j < left.size(); j++) {
                    Term y = left.get(j);
                    if ((neg != null && neg.id() == y.id()) || (terms.negationOf(y) != null && terms.negationOf(y).id() == x.id())) {
                        left.remove(j);
                        left.remove(i);
                        i--;
                        removed = true;
                        break;
                    }
                }
            }
            if (!removed) {
                return t;
            }
            return left.isEmpty() ? null : ops.op("sum", left);
        }
        Applied a = applied(t);
        if (a != null && (a.name().equals("mul") || a.name().equals("div")) && a.args().size() == 2) {
            for (int constant = 0; constant < 2; constant++) {
                // either factor may be the constant (both are, when the sum cancelled to the constant 0)
                boolean byConstant = isConstant(a.args().get(constant)) && (constant == 1 || a.name().equals("mul"));
                if (byConstant && cancelled(a.args().get(1 - constant)) == null) {
                    return null; // 0 times (or over) a constant
                }
            }
        }
        return t;
    }

    // ------------------------------------------------------------------ reductions and products

    /**
     * The reduction {@code fn} ({@code sum}, {@code max}, {@code min}) of {@code t} over axis {@code ax}
     * with the parts that do not vary along the axis taken out (class comment), {@code reduce}
     * building the reduction of what is left; null when nothing comes out. Over {@code integer}
     * values (i32, whose arithmetic wraps and whose division truncates) only the product comes out
     * of a sum: {@code sum_j(x_j * y) = sum_j(x_j) * y} holds modulo 2^32, but
     * {@code sum_j(x_j / y)} is not {@code sum_j(x_j) / y} ({@code 1/2 + 1/2 = 0}, {@code (1 + 1)/2 = 1}),
     * {@code max_j(x_j + k)} is not {@code max_j(x_j) + k} where {@code x_j + k} wraps, and
     * {@code max_j(-x_j)} is not {@code -min_j(x_j)} where the minimum is {@code -2^31}.
     */
    Term outOfReduction(String fn, Term t, int ax, boolean integer, BiFunction<String, Term, Term> reduce) {
        Term out = fn.equals("sum") ? factors.outOf(t, ax, this, inner -> reduce.apply(fn, inner)) : null;
        if (out != null) {
            return out;
        }
        Applied a = applied(t);
        if (fn.equals("sum") && a != null && a.args().size() == 2 && (a.name().equals("mul") || a.name().equals("div") && !integer)) {
            return scaledOut(a, ax, inner -> reduce.apply(fn, inner));
        }
        if (fn.equals("max") || fn.equals("min")) {
            Term clamp = clampOut(fn, t, ax, reduce);
            if (clamp != null) {
                return clamp;
            }
        }
        if ((fn.equals("max") || fn.equals("min")) && !integer) {
            if (a != null && INCREASING.contains(a.name()) && a.args().size() == 1) {
                return ops.op(a.name(), List.of(reduce.apply(fn, a.args().getFirst())));
            }
            Term negated = terms.negationOf(t);
            if (negated != null) {
                return ops.op("neg", List.of(reduce.apply(fn.equals("max") ? "min" : "max", negated)));
            }
            Terms.Flat f = terms.flat(t);
            if (f != null && f.op().equals("sum")) {
                List<Term> varying = new ArrayList<>();
                List<Term> fixed = new ArrayList<>();
                for (Term p : f.parts()) {
                    (constantAlong(p, ax) ? fixed : varying).add(p);
                }
                if (!fixed.isEmpty() && !varying.isEmpty()) {
                    Term rest = varying.size() == 1 ? varying.getFirst() : ops.op("sum", varying);
                    fixed.add(reduce.apply(fn, rest));
                    return ops.op("sum", fixed);
                }
            }
        }
        return null;
    }

    /**
     * The max or min reduction {@code fn} of a max or min {@code t} of varying parts and parts constant
     * along {@code ax}: {@code max_j min(x_j, k) = min(max_j x_j, k)} (and each other pairing), since
     * {@code min(., k)} and {@code max(., k)} are nondecreasing; exact over integers as over floats, as
     * they only select an argument. Null when {@code t} is no such term.
     */
    private Term clampOut(String fn, Term t, int ax, BiFunction<String, Term, Term> reduce) {
        Terms.Flat f = terms.flat(t);
        if (f == null || !(f.op().equals("max") || f.op().equals("min"))) {
            return null;
        }
        List<Term> varying = new ArrayList<>();
        List<Term> fixed = new ArrayList<>();
        for (Term p : f.parts()) {
            (constantAlong(p, ax) ? fixed : varying).add(p);
        }
        if (fixed.isEmpty() || varying.isEmpty()) {
            return null;
        }
        fixed.add(reduce.apply(fn, varying.size() == 1 ? varying.getFirst() : ops.op(f.op(), varying)));
        return ops.op(f.op(), fixed);
    }

    /**
     * {@code t @ other} (t the left operand, contracted over its axis 1) with a row scale of {@code t}
     * taken out, {@code multiply} building the product of what is left; null when there is none.
     */
    Term outOfMatmul(Term t, UnaryOperator<Term> multiply) {
        Term out = factors.outOf(t, 1, this, multiply);
        if (out != null) {
            return out;
        }
        Applied a = applied(t);
        if (a != null && a.args().size() == 2 && (a.name().equals("mul") || a.name().equals("div"))) {
            return scaledOut(a, 1, multiply);
        }
        return null;
    }

    /** {@code x * y} or {@code x / y} with {@code y} (for mul either factor) constant along {@code ax}: {@code inner(x) * y} or {@code inner(x) / y}. */
    private Term scaledOut(Applied a, int ax, UnaryOperator<Term> inner) {
        Term x = a.args().get(0);
        Term y = a.args().get(1);
        if (a.name().equals("mul") && !constantAlong(y, ax) && constantAlong(x, ax)) {
            Term swap = x;
            x = y;
            y = swap;
        }
        if (!constantAlong(y, ax) || constantAlong(x, ax)) {
            return null;
        }
        return ops.op(a.name(), List.of(inner.apply(x), y));
    }

    /** Whether {@code t} has the same value at every position of axis {@code ax} (a broadcast, a constant, a parameter). */
    boolean constantAlong(Term t, int ax) {
        return isConstant(t) || t.leafKey().startsWith("p:") || (ax < 64 && (terms.constantAxes(t) >> ax & 1) != 0);
    }

    static boolean isConstant(Term t) {
        return t.isFloatConstant() || t.isIntegerConstant();
    }

}
