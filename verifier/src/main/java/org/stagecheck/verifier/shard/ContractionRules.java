package org.stagecheck.verifier.shard;

import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.verifier.Code;

/**
 * The transfer rules of {@code MatMul} and {@code Reduce} (docs/verifier.md, "Contractions"): a
 * contraction over the whole domain of its axis is exact; over a constant window of it, it is a
 * partial holding that window of the contraction family. The family's term is the full
 * contraction, keyed by its operands' terms and the distance between their windows, so chips that
 * contract the same pairs of elements hold slices of one family, and a chip that pairs other
 * elements (another window of x against its rows of W) holds another.
 */
final class ContractionRules {
    private final ShardState st;
    private final ExprRules exprs;

    ContractionRules(ShardState st, ExprRules exprs) {
        this.st = st;
        this.exprs = exprs;
    }

    // ------------------------------------------------------------------ MatMul

    Val matmul(ComputeOp.MatMul m, List<Val> ins) {
        Val a = ins.size() > 0 ? ins.get(0) : null;
        Val b = ins.size() > 1 ? ins.get(1) : null;
        if (a instanceof Val.Tainted || b instanceof Val.Tainted) {
            return Val.TAINTED;
        }
        Val product = product(m, a, b);
        if (product instanceof Val.Tainted) {
            return product;
        }
        Val sum = product;
        if (m.spill() != null) {
            Val spill = st.value(m.spill());
            if (spill instanceof Val.Tainted) {
                return Val.TAINTED;
            }
            if (spill != null) {
                sum = exprs.combine(Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)), List.of(spill, product),
                        List.of(m.spill(), st.stage.outs().getFirst()), "/kind/op/spill");
            }
            st.values.put(m.spill(), sum);
        }
        if (m.bias() == null || sum instanceof Val.Tainted) {
            return sum;
        }
        Val bias = st.value(m.bias());
        if (bias instanceof Val.Tainted) {
            return Val.TAINTED;
        }
        return exprs.combine(Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)), java.util.Arrays.asList(sum, bias),
                List.of(st.stage.outs().getFirst(), m.bias()), "/kind/op/bias");
    }

    private Val product(ComputeOp.MatMul m, Val a, Val b) {
        if (a instanceof Val.Exact ea && b instanceof Val.Exact eb && ea.hidden() != null && eb.hidden() != null && !ea.hidden().equals(eb.hidden())) {
            return product(m, st.bake(ea), st.bake(eb));
        }
        if ((a instanceof Val.Partial && b instanceof Val.Exact eb && eb.hidden() != null)
                || (b instanceof Val.Partial && a instanceof Val.Exact ea && ea.hidden() != null)) {
            return product(m, st.bake(a), st.bake(b));
        }
        if (a instanceof Val.Exact ea && ea.hidden() != null && !(b instanceof Val.Exact eb && eb.hidden() != null)
                && Heads.place(st, ea, m.transposeA() ? 0 : 1) instanceof Val placed) {
            // one head's output contracted over its head columns (a per-head output projection), placed by the head layout
            return placed instanceof Val.Tainted ? placed : product(m, placed, b);
        }
        long[] out = st.outDims();
        Region ra = ExprRules.regionOf(a);
        Region rb = ExprRules.regionOf(b);
        if (out == null || ra == null || rb == null || ra.rank() != 2 || rb.rank() != 2) {
            return opaqueUnlessPartial(a, b, out);
        }
        int ka = m.transposeA() ? 0 : 1;
        int kb = m.transposeB() ? 1 : 0;
        Sym wa = ra.origin(ka);
        long k = ra.extent(ka);
        Long d = rb.origin(kb).minus(wa);
        String dKey = d != null ? Long.toString(d) : rb.origin(kb).key() + "|" + wa.key();
        Region region = new Region(new Sym[] {ra.origin(1 - ka), rb.origin(1 - kb)}, new long[] {ra.extent(1 - ka), rb.extent(1 - kb)});
        if (a instanceof Val.Partial pa && b instanceof Val.Partial pb) {
            String what = "MatMul multiplies the " + pa.describe() + " by the " + pb.describe();
            return product(m, demote(pa, what), demote(pb, what));
        }
        if (a instanceof Val.Exact ea && b instanceof Val.Exact eb) {
            Term t = mm(ea.term(), eb.term(), m, ka, kb, d, dKey);
            long lo = contractionLo(ea.term(), eb.term(), ka, kb, d);
            long hi = contractionHi(ea.term(), eb.term(), ka, kb, d);
            Val.Hidden hidden = ea.hidden() != null ? ea.hidden() : eb.hidden();
            if (wa.isConstant() && wa.constant() == lo && wa.constant() + k == hi) {
                return new Val.Exact(t, region, hidden);
            }
            if (d == null && (ea.term().spans(ka, wa, k) || eb.term().spans(kb, rb.origin(kb), k))) {
                // one operand contracted over its whole domain, the other's window at a distance that is not a
                // constant (an expert's rows at a data-dependent block offset): the whole contraction at that distance
                return new Val.Exact(t, region, hidden);
            }
            if (hidden != null) {
                // one head's product over a window of its axis (its row's block of a batched cache): a value of that window
                Term windowed = st.terms.of("mmw(" + t.id() + "@" + wa.key() + ":+" + k + ")", () -> t.text(), t.label(), t.lo(), t.hi(), t);
                return new Val.Exact(windowed, region, hidden);
            }
            if (!wa.isConstant()) {
                st.report(Code.SHARD_OFFSET_UNKNOWN, "/ins/0", st.stage.ins().getFirst(),
                        "The MatMul contracts a window of " + ea.term() + " at position " + wa + ", which is not a constant, so the slice of "
                                + t.label() + " it sums over cannot be derived.", null, null);
                return Val.TAINTED;
            }
            Term generic = d == null ? null : mm(ea.term(), eb.term(), m, ka, kb, d, "*");
            Family f = new Family(t, Slices.of(wa.constant(), wa.constant() + k), lo, hi, false, generic, d == null ? 0 : d, null, null,
                    st.shares.declaredShare(ea.term(), ka) || st.shares.declaredShare(eb.term(), kb));
            SortedMap<Integer, Family> fams = new TreeMap<>();
            fams.put(f.key(), f);
            return new Val.Partial(ReducePool.SUM, fams, region,
                    st.step(() -> "MatMul over " + f.describe() + " makes a partial of " + t.label(), null));
        }
        // one operand is a partial: the product is linear in it if the other side's contraction is whole
        boolean partialA = a instanceof Val.Partial;
        Val.Partial p = (Val.Partial) (partialA ? a : b);
        if (!((partialA ? b : a) instanceof Val.Exact e)) {
            return opaqueUnlessPartial(a, b, out);
        }
        SortedMap<Integer, Family> fams = new TreeMap<>();
        for (Family f : p.families().values()) {
            Term ta = partialA ? f.term() : e.term();
            Term tb = partialA ? e.term() : f.term();
            long lo = contractionLo(ta, tb, ka, kb, d);
            long hi = contractionHi(ta, tb, ka, kb, d);
            if (!(wa.isConstant() && wa.constant() == lo && wa.constant() + k == hi)) {
                Val.Exact plain = demote(p, "MatMul contracts the " + p.describe() + " over only part of its axis");
                return partialA ? product(m, plain, e) : product(m, e, plain);
            }
            Family g = partialA ? f.map(t -> mm(t, e.term(), m, ka, kb, d, dKey)) : f.map(t -> mm(e.term(), t, m, ka, kb, d, dKey));
            fams.put(g.key(), g);
        }
        return new Val.Partial(p.pool() == ReducePool.SUM ? ReducePool.SUM : p.pool(), fams, region,
                st.step(() -> "MatMul by " + e.term() + " keeps the " + p.describe(), p.origin()));
    }

    private Val.Exact demote(Val.Partial p, String what) {
        return st.demote(p, Code.PARTIAL_NONLINEAR, "/kind/op", st.stage.ins().isEmpty() ? null : st.stage.ins().getFirst(), what);
    }

    private Val opaqueUnlessPartial(Val a, Val b, long[] out) {
        for (Val v : new Val[] {a, b}) {
            if (v instanceof Val.Partial p) {
                Val.Exact d = demote(p, "MatMul takes the " + p.describe() + " in a layout the checker cannot follow");
                return out == null ? Val.TAINTED : new Val.Exact(st.terms.of("mm-opaque:" + st.here() + ":" + d.term().id(), "matmul", "", out, d.term()),
                        Region.at0(out));
            }
        }
        return st.opaque(out, "matmul");
    }

    private Term mm(Term ta, Term tb, ComputeOp.MatMul m, int ka, int kb, Long d, String dKey) {
        if (!m.transposeA() && ta.rank() == 2) {
            // a row scale of the left operand leaves the product (docs/verifier.md, "Monotone functions and rescaled maxima")
            Term out = st.ops.identities().outOfMatmul(ta, inner -> mm(inner, tb, m, ka, kb, d, dKey));
            if (out != null) {
                return out;
            }
        }
        long[] lo = {ta.rank() == 2 ? ta.lo()[1 - ka] : Long.MIN_VALUE, tb.rank() == 2 ? tb.lo()[1 - kb] : Long.MIN_VALUE};
        long[] hi = {ta.rank() == 2 ? ta.hi()[1 - ka] : Long.MAX_VALUE, tb.rank() == 2 ? tb.hi()[1 - kb] : Long.MAX_VALUE};
        String label = !tb.label().isEmpty() ? tb.label() : ta.label();
        return st.terms.of("mm(" + ta.id() + "," + tb.id() + ";" + m.transposeA() + "," + m.transposeB() + ";" + dKey + ")", () -> ta.text() + " @ " + tb.text(), label, lo, hi, ta, tb);
    }

    private static long contractionLo(Term ta, Term tb, int ka, int kb, Long d) {
        if (d == null || ta.rank() != 2 || tb.rank() != 2) {
            return Long.MIN_VALUE;
        }
        return Math.max(ta.lo()[ka], Terms.shiftBound(tb.lo()[kb], d));
    }

    private static long contractionHi(Term ta, Term tb, int ka, int kb, Long d) {
        if (d == null || ta.rank() != 2 || tb.rank() != 2) {
            return Long.MAX_VALUE;
        }
        return Math.min(ta.hi()[ka], Terms.shiftBound(tb.hi()[kb], d));
    }

    // ------------------------------------------------------------------ Reduce

    Val reduce(ComputeOp.Reduce r, Val in) {
        long[] out = st.outDims();
        int ax = r.axis();
        return switch (in) {
            case null -> st.opaque(out, "reduce");
            case Val.Tainted t -> t;
            case Val.Exact e when ax < e.region().rank() && e.term().rank() == e.region().rank() -> reduceExact(r, e);
            case Val.Exact e -> st.opaque(out, "reduce");
            case Val.Partial p -> reducePartial(r, p);
        };
    }

    private Val reduceExact(ComputeOp.Reduce r, Val.Exact e) {
        int ax = r.axis();
        Region reg = e.region();
        Term t = e.term();
        Sym from = reg.origin(ax);
        long ext = reg.extent(ax);
        Region outRegion = reg.with(ax, Sym.ZERO, 1);
        if (t.spans(ax, from, ext)) {
            Term whole = reduced(r.fn(), t, ax, "");
            if (r.fn() == ReduceFn.ARGMAX) {
                st.ranges.put(whole.id(), new long[] {0, ext}); // an index into the whole axis
            }
            return e.with(whole, outRegion);
        }
        if (e.hidden() != null && r.fn() != ReduceFn.ARGMAX) {
            // one head's reduction over a window (its row's block of a batched cache): a value of that window
            return e.with(reduced(r.fn(), t, ax, "@" + from.key() + ":+" + ext), outRegion);
        }
        if (r.fn() == ReduceFn.ARGMAX || !from.isConstant() || !t.bounded(ax)) {
            // the reduction of this window only: a term that names the window, so chips holding other windows differ
            if (r.fn() == ReduceFn.ARGMAX && st.index.program().machine().chips() > 1 && t.bounded(ax)) {
                String message = "Reduce argmax runs over window " + from + ":+" + ext + " of axis " + ax + " of " + t + " (whose axis is ["
                        + t.lo()[ax] + "," + t.hi()[ax] + ")), so it gives the index of the maximum within this chip's window only.";
                if (!from.isConstant()) {
                    st.report(Code.SHARD_LOCAL_ARGMAX, "/kind/op/fn", st.stage.ins().getFirst(), message, null, null);
                    return Val.TAINTED;
                }
                // a local arg-max: a finding unless a vocabulary-parallel combine takes it (VocabArgmax)
                return exprs.vocab().local(t, outRegion, from.constant(), ext, reduced(ReduceFn.MAX, t, ax, ""), reduced(ReduceFn.ARGMAX, t, ax, ""),
                        t.lo()[ax], t.hi()[ax], message);
            }
            return e.with(reduced(r.fn(), t, ax, "@" + from.key() + ":+" + ext), outRegion);
        }
        ReducePool pool = switch (r.fn()) {
            case SUM -> ReducePool.SUM;
            case MAX -> ReducePool.MAX;
            case MIN -> ReducePool.MIN;
            case ARGMAX -> ReducePool.SUM; // handled above
        };
        Family f = new Family(reduced(r.fn(), t, ax, ""), Slices.of(from.constant(), from.constant() + ext), t.lo()[ax], t.hi()[ax], false);
        SortedMap<Integer, Family> fams = new TreeMap<>();
        fams.put(f.key(), f);
        Val.Partial made = new Val.Partial(pool, fams, outRegion, null);
        return new Val.Partial(pool, fams, outRegion, st.step(() -> "reduce " + r.fn().jsonName() + " over " + f.describe() + " makes a " + made.describe(), null));
    }

    private Val reducePartial(ComputeOp.Reduce r, Val.Partial p) {
        int ax = r.axis();
        boolean sameFn = switch (r.fn()) {
            case SUM -> p.pool() == ReducePool.SUM;
            case MAX -> p.pool() == ReducePool.MAX;
            case MIN -> p.pool() == ReducePool.MIN;
            case ARGMAX -> false;
        };
        String buffer = st.stage.ins().getFirst();
        if (!sameFn || ax >= p.region().rank()) {
            Val.Exact d = st.demote(p, Code.PARTIAL_NONLINEAR, "/kind/op/fn", buffer, "reduce " + r.fn().jsonName() + " meets the " + p.describe());
            return reduce(r, d);
        }
        Sym from = p.region().origin(ax);
        long ext = p.region().extent(ax);
        SortedMap<Integer, Family> fams = new TreeMap<>();
        for (Family f : p.families().values()) {
            String window = f.term().spans(ax, from, ext) ? "" : "@" + from.key() + ":+" + ext;
            Family g = f.map(t -> reduced(r.fn(), t, ax, window));
            fams.put(g.key(), g);
        }
        return new Val.Partial(p.pool(), fams, p.region().with(ax, Sym.ZERO, 1),
                st.step(() -> "reduce " + r.fn().jsonName() + " keeps the " + p.describe(), p.origin()));
    }

    /** Whether the reduce stage being read reduces integer values (wrapping arithmetic: fewer identities hold, {@link Identities#outOfReduction}). */
    private boolean reducesIntegers() {
        BufferDecl in = st.index.buffer(st.stage.ins().getFirst());
        return in == null || in.dtype().isInteger();
    }

    private Term reduced(ReduceFn fn, Term t, int ax, String window) {
        Transposes.Of tr = fn != ReduceFn.ARGMAX && ax < t.rank() ? st.terms.transposes().of(t) : null;
        if (tr != null) {
            // a reduction along axis ax of transpose(u) is along axis perm[ax] of u, transposed the same way
            // (the same elements in the same order: exact); transposing back then cancels the transpose
            return st.terms.transposes().permuted(reduced(fn, tr.inner(), tr.perm().get(ax), window), tr.perm());
        }
        if (window.isEmpty() && fn != ReduceFn.ARGMAX) {
            // what does not vary along the axis leaves the reduction (docs/verifier.md, "Monotone functions and rescaled maxima")
            Term out = st.ops.identities().outOfReduction(fn.jsonName(), t, ax, reducesIntegers(),
                    (f, inner) -> reduced(ReduceFn.valueOf(f.toUpperCase(java.util.Locale.ROOT)), inner, ax, ""));
            if (out != null) {
                return out;
            }
        }
        long[] lo = t.lo().clone();
        long[] hi = t.hi().clone();
        if (ax < lo.length) {
            lo[ax] = 0;
            hi[ax] = 1;
        }
        return st.terms.of("red-" + fn.jsonName() + "(" + t.id() + ";" + ax + window + ")", () -> fn.jsonName() + "(" + t.text() + ")", t.label(), lo, hi, t);
    }
}
