package org.stagecheck.verifier.shard;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Function;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.verifier.Code;

/**
 * A vocabulary-parallel arg-max (docs/verifier.md, "Vocabulary-parallel arg-max"): each chip takes
 * the arg-max {@code i_c} of its window {@code [start, start + n)} of a row, adds its offset
 * ({@code g_c = i_c + start}, the position in the whole row), and keeps it where its local maximum
 * {@code m_c} is the completed maximum {@code M}, a constant at least the row's extent elsewhere:
 * {@code select(eq(m_c, M), g_c, BIG)}. A min all-reduce of those is the first position of the
 * row's maximum, which is the arg-max of the whole row.
 *
 * <p>A local arg-max is chip-specific: its term is demoted with {@code SHARD_LOCAL_ARGMAX}, reported
 * where chips' values meet, or at the end of the pass for every local arg-max that no such select
 * took.
 */
final class VocabArgmax {
    private final ShardState st;
    /** By term id: the local arg-max it is, plus a constant. */
    private final IdMap<Local> locals = new IdMap<>();
    private final List<Term> made = new ArrayList<>();
    private final Set<Integer> combined = new HashSet<>();

    /**
     * {@code base} is the arg-max of {@code [start, start + extent)} of axis {@code axis} of a term
     * plus {@code offset}; {@code max} is the family term the reduce max of that window would
     * have, {@code whole} the arg-max of the whole axis {@code [lo, hi)}.
     */
    record Local(Term base, long start, long extent, long offset, Term max, Term whole, long lo, long hi) {
        Local plus(long k) {
            return new Local(base, start, extent, offset + k, max, whole, lo, hi);
        }
    }

    VocabArgmax(ShardState st) {
        this.st = st;
    }

    /** The arg-max of window {@code [start, start + extent)} of a bounded axis, a chip-specific index. */
    Val.Exact local(Term of, Region out, long start, long extent, Term max, Term whole, long lo, long hi, String message) {
        Demotion why = new Demotion(Code.SHARD_LOCAL_ARGMAX, st.stageIndex, st.stage, "/kind/op/fn",
                st.stage.ins().isEmpty() ? null : st.stage.ins().getFirst(), message, List.of());
        Term t = st.terms.demoted("largmax(" + whole.id() + ";" + start + ":+" + extent + ")", () -> "argmax of " + of.text() + " over [" + start + "," + (start + extent) + ")",
                of.label(), Terms.unboundedLo(out.rank()), Terms.unboundedHi(out.rank()), why, of);
        locals.put(t.id(), new Local(t, start, extent, 0, max, whole, lo, hi));
        made.add(t);
        return new Val.Exact(t, out);
    }

    /** Remembers {@code result = fn(args)} when it is a local arg-max plus or minus an integer constant. */
    void derived(Term result, Fn fn, List<Term> args) {
        if ((fn != Fn.ADD && fn != Fn.SUB) || args.size() != 2) {
            return;
        }
        for (int i = 0; i < 2; i++) {
            Local l = locals.get(args.get(i).id());
            Long k = integer(args.get(1 - i));
            if (l != null && k != null && (fn == Fn.ADD || i == 0)) {
                locals.put(result.id(), l.plus(fn == Fn.ADD ? k : -k));
                return;
            }
        }
    }

    /**
     * {@code select(eq(m_c, M), g_c, BIG)} (or {@code ge(m_c, M)}, which is the same since
     * {@code m_c <= M}) where {@code m_c} is this chip's max-partial of the window its arg-max
     * {@code g_c} (plus its start) was taken over, {@code M} its completion and {@code BIG} at
     * least the row's extent: this chip's share of a min over the chips, complete as the arg-max
     * of the whole row. Null when the select is no such combine.
     */
    ExprRules.AV candidate(Expr.Apply a, Function<Expr, ExprRules.AV> eval) {
        if (a.args().size() != 3 || !(a.args().get(0) instanceof Expr.Apply test) || test.args().size() != 2
                || !(test.fn() == Fn.EQ || test.fn() == Fn.GE)) {
            return null;
        }
        ExprRules.AV left = eval.apply(test.args().get(0));
        ExprRules.AV right = eval.apply(test.args().get(1));
        ExprRules.Lin m = left instanceof ExprRules.Lin l ? l : test.fn() == Fn.EQ && right instanceof ExprRules.Lin l ? l : null;
        ExprRules.AV other = m == left ? right : left;
        if (m == null || m.pool() != ReducePool.MAX || m.families().size() != 1 || m.rescale() == null || !m.rescale().unshifted()
                || !(other instanceof ExprRules.Ex completed)) {
            return null;
        }
        Family f = m.families().values().iterator().next();
        if (completed.term().id() != f.term().id()) {
            return null;
        }
        if (!(eval.apply(a.args().get(1)) instanceof ExprRules.Ex g) || !(eval.apply(a.args().get(2)) instanceof ExprRules.Ex big)) {
            return null;
        }
        Local l = locals.get(g.term().id());
        Long sentinel = integer(big.term());
        if (l == null || sentinel == null || sentinel < l.hi() || l.lo() != 0 || l.offset() != l.start()
                || l.max().id() != m.rescale().base().id() || !f.slices().equals(Slices.of(l.start(), l.start() + l.extent()))) {
            return null;
        }
        combined.add(l.base().id());
        st.ranges.put(l.whole().id(), new long[] {0, l.hi()});
        Family share = new Family(l.whole(), f.slices(), l.lo(), l.hi(), false);
        SortedMap<Integer, Family> fams = new TreeMap<>();
        fams.put(share.key(), share);
        return new ExprRules.Lin(ReducePool.MIN, fams, st.step(() -> "select keeps the arg-max of " + share.describe()
                + " where the local maximum is the completed one: a min-partial of the arg-max", m.origin()));
    }

    /** Reports every local arg-max that no combine took (once each; one that met another chip's value was reported there). */
    void reportUncombined() {
        for (Term t : made) {
            if (!combined.contains(t.id())) {
                st.reportDemotions(List.of(t), null);
            }
        }
    }

    private static Long integer(Term t) {
        String k = t.leafKey();
        if (k.startsWith("ci:")) {
            return Long.parseLong(k.substring(3));
        }
        if (t.isFloatConstant()) {
            double d = (Double) t.constantValue();
            return d == Math.rint(d) && Math.abs(d) < 1e15 ? (long) d : null;
        }
        return null;
    }
}
