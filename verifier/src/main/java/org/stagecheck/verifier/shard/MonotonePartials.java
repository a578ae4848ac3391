package org.stagecheck.verifier.shard;

import java.util.ArrayList;
import java.util.List;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.verifier.Code;

/**
 * Elementwise functions of max and min partials (docs/verifier.md, "Monotone functions and
 * rescaled maxima"). A max-partial {@code m_c} (chip c's maximum over its slices) completes to
 * {@code M = max_c m_c}. A function {@code f} increasing in it keeps it a max-partial of
 * {@code f(M)}: {@code max_c f(m_c) = f(max_c m_c)}; a decreasing one makes it a min-partial
 * ({@code max_c(-m_c) = -min_c(m_c)} read the other way). Increasing here: adding a value
 * ({@code m_c + k}), multiplying or dividing by a positive constant, {@code exp}, {@code tanh},
 * {@code sigmoid}; decreasing: negation, a negative constant factor.
 *
 * <p>{@code exp} of an affine function of the partial that also involves another value
 * ({@code exp(x - m_c)}, {@code exp(m_c - M)}) is instead factored:
 * {@code exp(A(m_c)) = exp(A(M)) * exp(a * (m_c - M))}, the second factor a chip-specific rescale
 * factor ({@link RescaleFactors#kappa}) that a product with {@code exp(m_c - M)} cancels. That is how
 * a sequence-parallel softmax rescales each chip's partial sums before the sum all-reduce.
 */
final class MonotonePartials {
    private final ShardState st;
    private final ExprRules exprs;
    /**
     * The values {@code exp(A(m_c))} factored as {@code exp(A(M))} times a rescale factor
     * ({@link #rescaled}), by term id: each is also the max (or min) partial of {@code exp(A(M))}
     * that {@code exp}, increasing, makes of the partial, which a max (or min) all-reduce
     * completes ({@link #extremeView}).
     */
    private final IdMap<ExprRules.Lin> extremeViews = new IdMap<>();

    MonotonePartials(ShardState st, ExprRules exprs) {
        this.st = st;
        this.exprs = exprs;
    }

    /**
     * How a max or min partial of one family ({@code base}, its term as the partial holds it), read in one frame, enters a value: {@code key} names
     * the family, the chip's slices and where it was read (per axis the shift from the frame, or
     * {@code b} for an axis the reduction left one element wide; {@code unshifted} when every shift is 0); the value is affine in the local
     * extreme with {@code coefficient} while {@code affine}; {@code mixed} when another non-constant
     * value was added to it.
     */
    record Rescale(Term base, String key, boolean unshifted, String text, int rank, long constantAxes, String buffer, double coefficient, boolean affine,
                   boolean mixed) {

        /** For a max or min partial of one contraction family, the rescale of its value as read in {@code frame}; else null. */
        static Rescale of(Val.Partial p, Sym[] frame, int rank, String buffer) {
            if (p.pool() == ReducePool.SUM || p.families().size() != 1) {
                return null;
            }
            Family f = p.families().values().iterator().next();
            if (f.whole() || f.by() != null || p.region().rank() > rank) {
                return null;
            }
            Term t = f.term();
            int lead = rank - p.region().rank();
            StringBuilder key = new StringBuilder(p.pool().name()).append(':').append(t.id()).append(';').append(f.slices()).append(';');
            long constant = 0;
            boolean unshifted = true;
            for (int a = 0; a < rank; a++) {
                if (a < lead) {
                    constant |= 1L << a;
                    continue;
                }
                int ai = a - lead;
                boolean single = ai < t.rank() && t.bounded(ai) && t.hi()[ai] - t.lo()[ai] == 1;
                if (single) {
                    key.append("b,");
                    constant |= a < 64 ? 1L << a : 0;
                    continue;
                }
                Long d = p.region().origin(ai).minus(frame[a]);
                unshifted &= d != null && d == 0;
                key.append(d != null ? Long.toString(d) : p.region().origin(ai).key() + "|" + frame[a].key()).append(',');
            }
            String text = "the local " + p.pool().jsonName() + " of " + f.describe() + " less its completion";
            return new Rescale(t, key.toString(), unshifted, text, rank, constant, buffer, 1.0, true, false);
        }

        Rescale times(double c) {
            return new Rescale(base, key, unshifted, text, rank, constantAxes, buffer, coefficient * c, affine, mixed);
        }

        Rescale plus(Term added) {
            return new Rescale(base, key, unshifted, text, rank, constantAxes, buffer, coefficient, affine, mixed || !Identities.isConstant(added));
        }

        Rescale notAffine() {
            return new Rescale(base, key, unshifted, text, rank, constantAxes, buffer, coefficient, false, mixed);
        }
    }

    /** {@code fn} (exp, tanh or sigmoid: increasing) of a max or min partial. */
    ExprRules.AV increasing(Fn fn, ExprRules.Lin l) {
        ExprRules.Lin lin = l;
        if (fn == Fn.EXP && lin.rescale() != null && lin.rescale().affine() && lin.rescale().mixed() && lin.families().size() == 1) {
            return rescaled(lin);
        }
        Rescale r = lin.rescale() == null ? null : lin.rescale().notAffine();
        return new ExprRules.Lin(lin.pool(), ExprRules.mapTerms(lin, t -> exprs.op(fn.spelling(), List.of(t))), lin.origin(), r);
    }

    /**
     * {@code exp(A(m_c))}, {@code A} affine in the chip's local extreme with coefficient {@code a}:
     * {@code exp(A(M))} times the rescale factor {@code exp(a * (m_c - M))}.
     */
    private ExprRules.AV rescaled(ExprRules.Lin l) {
        Rescale r = l.rescale();
        Family f = l.families().values().iterator().next();
        Term atCompletion = st.ops.identities().exp(f.term());
        List<String> trail = new ArrayList<>();
        if (l.origin() != null) {
            trail.addAll(l.origin().trail());
        }
        trail.add("#" + st.stageIndex + " " + st.stage.id() + ": exp takes " + r.text() + " (a factor that differs from chip to chip)");
        Demotion why = new Demotion(Code.PARTIAL_NONLINEAR, st.stageIndex, st.stage, "/kind/op/expr", r.buffer(),
                "exp takes " + r.text() + " (m_c - M, this chip's m_c against the completed M), and the factor exp(m_c - M) this leaves "
                        + "differs from chip to chip and is never cancelled by a rescale with exp(m_c - M), so the chips' values do not combine.",
                trail);
        Term factor = st.ops.rescales().kappa(r.key(), r.coefficient(), r.rank(), r.constantAxes(), r.text(), why);
        Term value = exprs.op("mul", List.of(atCompletion, factor));
        if (!extremeViews.containsKey(value.id())) {
            Origin kept = st.step(() -> "exp keeps the " + ExprRules.describe(l) + " (exp is increasing)", l.origin());
            extremeViews.put(value.id(), new ExprRules.Lin(l.pool(), ExprRules.mapTerms(l, t -> exprs.op("exp", List.of(t))), kept, null));
        }
        return new ExprRules.Ex(value, false);
    }

    /**
     * The partial {@code value} also is when it is {@code exp(A(m_c))} of a max or min partial
     * {@code m_c} that {@link #rescaled} factored, pooled with {@code pool}; else null. Under a max
     * all-reduce {@code max_c exp(A(m_c)) = exp(A(max_c m_c))} (exp and an affine map with a
     * positive coefficient are nondecreasing, so the chip holding the largest {@code m_c} holds
     * the largest value, to the bit), so the factored value need not cancel its factor to
     * combine: it is completed as the partial it is.
     */
    ExprRules.Lin extremeView(Term value, ReducePool pool) {
        ExprRules.Lin view = extremeViews.get(value.id());
        return view != null && view.pool() == pool ? view : null;
    }

    /** {@code l + x} (or {@code x + l}): increasing in the partial. */
    ExprRules.AV plus(ExprRules.Lin l, ExprRules.Ex x, boolean partialFirst) {
        Rescale r = l.rescale() == null ? null : l.rescale().plus(x.term());
        return new ExprRules.Lin(l.pool(), ExprRules.mapTerms(l, t -> exprs.op("add", partialFirst ? List.of(t, x.term()) : List.of(x.term(), t))),
                l.origin(), r);
    }

    /**
     * {@code min(l, x)} of a max-partial or {@code max(l, x)} of a min-partial ({@code x} the same
     * on every chip, or the all-reduce finds the chips' terms differ): a clamp, nondecreasing in the
     * partial, so it keeps its pool: {@code max_c min(m_c, x) = min(max_c m_c, x)}. Not affine: an
     * {@code exp} of it is no rescale.
     */
    ExprRules.AV clamped(Fn fn, ExprRules.Lin l, ExprRules.Ex x, boolean partialFirst) {
        Rescale r = l.rescale() == null ? null : l.rescale().notAffine();
        return new ExprRules.Lin(l.pool(), ExprRules.mapTerms(l, t -> exprs.op(fn.spelling(), partialFirst ? List.of(t, x.term()) : List.of(x.term(), t))),
                l.origin(), r);
    }

    /** {@code -l}: decreasing, so a max-partial becomes a min-partial. */
    ExprRules.AV negated(ExprRules.Lin l) {
        Rescale r = l.rescale() == null ? null : l.rescale().times(-1);
        return new ExprRules.Lin(swap(l.pool()), ExprRules.mapTerms(l, t -> exprs.op("neg", List.of(t))), l.origin(), r);
    }

    /** {@code l * c}, {@code c * l} or {@code l / c} for a constant {@code c}: increasing when it is positive, decreasing when negative. */
    ExprRules.AV scaled(Fn fn, ExprRules.Lin l, Term other, boolean partialFirst) {
        double c = other.isFloatConstant() ? (Double) other.constantValue() : Double.NaN;
        if (Double.isNaN(c) || Double.isInfinite(c) || c == 0.0 || (fn == Fn.DIV && !partialFirst)) {
            return ExprRules.fail(Code.PARTIAL_NONLINEAR, fn.spelling() + " meets the " + ExprRules.describe(l)
                    + (Double.isNaN(c) ? " and a value of unknown sign (not monotone)" : ""), l);
        }
        double factor = fn == Fn.DIV ? 1.0 / c : c;
        Rescale r = l.rescale() == null ? null : l.rescale().times(factor);
        return new ExprRules.Lin(c > 0 ? l.pool() : swap(l.pool()),
                ExprRules.mapTerms(l, t -> exprs.op(fn.spelling(), partialFirst ? List.of(t, other) : List.of(other, t))), l.origin(), r);
    }

    static ReducePool swap(ReducePool pool) {
        return switch (pool) {
            case MAX -> ReducePool.MIN;
            case MIN -> ReducePool.MAX;
            case SUM -> ReducePool.SUM;
        };
    }
}
