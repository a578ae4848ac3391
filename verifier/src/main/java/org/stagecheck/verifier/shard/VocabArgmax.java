package org.stagecheck.verifier.shard;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Function;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.verifier.Code;

/**
 * A vocabulary-parallel arg-max (docs/verifier.md, "Vocabulary-parallel arg-max"): each chip takes
 * the arg-max {@code i_c} of its window {@code [start, start + n)} of a row, adds its offset
 * ({@code g_c = i_c + start}, the position in the whole row), and keeps it where its local maximum
 * {@code m_c} is the completed maximum {@code M}, a constant at least the row's extent elsewhere:
 * {@code select(eq(m_c, M), g_c, BIG)}. A min all-reduce of those is the first position of the
 * row's maximum, which is the arg-max of the whole row.
 *
 * <p>Terms do not model rounding, so the select is taken only where {@code m_c} is the maximum of
 * the very values the arg-max ran over and {@code M} the max all-reduce of such maxima, each exact
 * in its dtype ({@link SameValues}); otherwise it is {@code SHARD_LOCAL_ARGMAX} at the select.
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
    /** The value ids of a multi-chip program with an arg-max; else null (nothing to follow). */
    private final SameValues values;
    /** The value ids the local arg-maxes ran over. */
    private final Set<Integer> argmaxSources = new HashSet<>();
    /** Operands of the max all-reduces that selects compared with, each a maximum of the value id {@code of}. */
    private final List<Operand> operands = new ArrayList<>();
    private boolean nanNoted;

    /** Operand {@code port} of the max all-reduce {@code all}, the maximum of value id {@code of}. */
    private record Operand(SameValues.AllMax all, int port, int of) {}

    /**
     * {@code base} is the arg-max of {@code [start, start + extent)} of axis {@code axis} of a term
     * plus {@code offset}; {@code max} is the family term the reduce max of that window would
     * have, {@code whole} the arg-max of the whole axis {@code [lo, hi)}.
     */
    record Local(Term base, long start, long extent, long offset, Term max, Term whole, long lo, long hi, int source, String over) {
        Local plus(long k) {
            return new Local(base, start, extent, offset + k, max, whole, lo, hi, source, over);
        }
    }

    VocabArgmax(ShardState st) {
        this.st = st;
        boolean argmax = false;
        for (Stage s : st.index.program().stages()) {
            argmax |= s.kind() instanceof StageKind.Compute c && c.op() instanceof ComputeOp.Reduce r && r.fn() == ReduceFn.ARGMAX;
        }
        this.values = argmax && st.index.program().machine().chips() > 1 ? new SameValues(st.index.program().buffers()) : null;
    }

    /** Follows what the current stage wrote (after its values are made). */
    void written() {
        if (values != null) {
            values.written(st.stage, st.stageIndex);
        }
    }

    /** The arg-max of window {@code [start, start + extent)} of a bounded axis, a chip-specific index. */
    Val.Exact local(Term of, Region out, long start, long extent, Term max, Term whole, long lo, long hi, String message) {
        Demotion why = new Demotion(Code.SHARD_LOCAL_ARGMAX, st.stageIndex, st.stage, "/kind/op/fn",
                st.stage.ins().isEmpty() ? null : st.stage.ins().getFirst(), message, List.of());
        Term t = st.terms.demoted("largmax(" + whole.id() + ";" + start + ":+" + extent + ")", () -> "argmax of " + of.text() + " over [" + start + "," + (start + extent) + ")",
                of.label(), Terms.unboundedLo(out.rank()), Terms.unboundedHi(out.rank()), why, of);
        String over = st.stage.ins().isEmpty() ? null : st.stage.ins().getFirst();
        int source = values == null ? SameValues.UNKNOWN : values.id(over);
        locals.put(t.id(), new Local(t, start, extent, 0, max, whole, lo, hi, source, over));
        argmaxSources.add(source);
        made.add(t);
        return new Val.Exact(t, out);
    }

    /** Remembers {@code result = fn(args)} when it is a local arg-max plus or minus an integer constant. */
    void derived(Term result, Fn fn, List<Term> args) {
        if ((fn != Fn.ADD && fn != Fn.SUB) || args.size() != 2 || locals.isEmpty()) {
            return;
        }
        for (int i = 0; i < 2; i++) {
            Local l = locals.get(args.get(i).id());
            Long k = l == null ? null : integer(args.get(1 - i));
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
     * of the whole row. The test may also keep a NaN maximum, {@code or(eq(m_c, M), ne(m_c, m_c))}
     * (either order), which is exact on rows holding a NaN too. Null when the select is no such
     * combine.
     */
    ExprRules.AV candidate(Expr.Apply a, Function<Expr, ExprRules.AV> eval) {
        if (a.args().size() != 3 || !(a.args().get(0) instanceof Expr.Apply cond)) {
            return null;
        }
        Expr.Apply test = cond;
        Expr nanGuard = null;
        if (cond.fn() == Fn.OR && cond.args().size() == 2) {
            int k = cond.args().get(0) instanceof Expr.Apply first && first.fn() == Fn.NE ? 0 : 1;
            nanGuard = cond.args().get(k);
            test = cond.args().get(1 - k) instanceof Expr.Apply t ? t : cond;
        }
        if (test.args().size() != 2 || !(test.fn() == Fn.EQ || test.fn() == Fn.GE)) {
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
        int mPort = m == left ? 0 : 1;
        boolean nanSafe = nanGuard instanceof Expr.Apply ne && ne.fn() == Fn.NE && ne.args().size() == 2
                && ne.args().get(0).equals(test.args().get(mPort)) && ne.args().get(1).equals(test.args().get(mPort));
        if (nanGuard != null && !nanSafe) {
            return null;
        }
        combined.add(l.base().id());
        String differs = differentValues(test.args().get(mPort), test.args().get(1 - mPort), l);
        if (differs != null) {
            String buffer = port(test.args().get(mPort));
            st.report(Code.SHARD_LOCAL_ARGMAX, "/kind/op/expr", buffer, "This select keeps chip " + st.chipOf(l.over()) + "'s arg-max of '" + l.over()
                    + "' where its local maximum equals the completed one, but " + differs + ": a maximum of other values (a copy rounded to another"
                    + " format holds the same terms) ties where the arg-max's values differ, or differs where they tie, so the combine is not the"
                    + " arg-max of the row.", m.origin(), "compares the arg-max's chip with a maximum of other values");
        } else if (!nanSafe && !nanNoted) {
            nanNoted = true;
            st.notes.add("#" + st.stageIndex + " " + st.stage.id() + ": the arg-max combine " + Expr.print(a)
                    + " gives its sentinel on a row holding a NaN (every eq or ge with the NaN maximum is false), where the unsplit arg-max"
                    + " takes the row's first NaN: the split is not proved on such rows; or(" + Expr.print(test) + ", ne(" + Expr.print(test.args().get(mPort)) + ", " + Expr.print(test.args().get(mPort)) + ")) keeps a NaN"
                    + " maximum and is (docs/verifier.md, \"Vocabulary-parallel arg-max\").");
        }
        st.ranges.put(l.whole().id(), new long[] {0, l.hi()});
        Family share = new Family(l.whole(), f.slices(), l.lo(), l.hi(), false);
        SortedMap<Integer, Family> fams = new TreeMap<>();
        fams.put(share.key(), share);
        return new ExprRules.Lin(ReducePool.MIN, fams, st.step(() -> "select keeps the arg-max of " + share.describe()
                + " where the local maximum is the completed one: a min-partial of the arg-max", m.origin()));
    }

    /**
     * Null when the select's {@code m_c} (at {@code mAt}) is the maximum of the very values the
     * arg-max {@code l} ran over and its {@code M} (at {@code bigAt}) the max all-reduce of
     * {@code m_c} with other chips' maxima, all exact in their dtypes; else what differs.
     */
    private String differentValues(Expr mAt, Expr bigAt, Local l) {
        String mBuffer = port(mAt);
        String bigBuffer = port(bigAt);
        if (values == null || mBuffer == null || bigBuffer == null) {
            return "its local maximum or the completed one is computed inside the select, so which values they were taken over is not known";
        }
        int m = values.id(mBuffer);
        if (l.source() == SameValues.UNKNOWN || values.maxOf(m) != l.source()) {
            return "'" + mBuffer + "' is not a maximum taken, exactly in its dtype, over the values of '" + l.over() + "' that the arg-max ran over";
        }
        SameValues.AllMax all = values.allMax(values.id(bigBuffer));
        if (all == null || !all.operands().contains(m)) {
            return "'" + bigBuffer + "' is not a max all-reduce, exact in its dtype, that takes '" + mBuffer + "' itself";
        }
        for (int p = 0; p < all.operands().size(); p++) {
            int of = values.maxOf(all.operands().get(p));
            if (of == SameValues.UNKNOWN) {
                return "operand " + p + " ('" + all.buffers().get(p) + "') of the max all-reduce that made '" + bigBuffer
                        + "' is not a maximum taken exactly in its dtype";
            }
            operands.add(new Operand(all, p, of));
        }
        return null;
    }

    /** The buffer an expression that is a plain port names, or null. */
    private String port(Expr e) {
        return e instanceof Expr.In in && in.index() < st.stage.ins().size() ? st.stage.ins().get(in.index()) : null;
    }

    /**
     * Reports every local arg-max that no combine took (once each; one that met another chip's
     * value was reported there), and every operand of a compared max all-reduce that is the maximum
     * of values no arg-max ran over (a chip's maximum of a rounded copy makes the completed maximum
     * one that no chip's own maximum need equal).
     */
    void reportUncombined() {
        for (Term t : made) {
            if (!combined.contains(t.id())) {
                st.reportDemotions(List.of(t), null);
            }
        }
        Set<String> reported = new HashSet<>();
        for (Operand o : operands) {
            if (!argmaxSources.contains(o.of()) && reported.add(o.all().stageIndex() + "/" + o.port())) {
                String buffer = o.all().buffers().get(o.port());
                st.findings.atStage(Code.SHARD_LOCAL_ARGMAX, o.all().stageIndex(), st.index.program().stages().get(o.all().stageIndex()),
                        "/ins/" + o.port(), buffer, "Buffer '" + buffer + "' is the maximum of values that no arg-max runs over, and this max"
                                + " all-reduce's result is what the arg-max combines compare their chips' maxima with: a maximum of other values"
                                + " (a copy rounded to another format) may exceed every chip's own, and the combine then keeps no position.", List.of());
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
