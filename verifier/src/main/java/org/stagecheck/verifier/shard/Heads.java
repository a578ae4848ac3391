package org.stagecheck.verifier.shard;

import java.util.List;

/**
 * The outputs of attention heads laid side by side (docs/verifier.md, "Hidden positions"). Each
 * part is one term held at hidden position {@code q} (its query window) with its visible window
 * on the concat axis at {@code v} (its value window) and key distance {@code shift}. The parts
 * form a window of one logical attention output when their query windows are consecutive and
 * every part follows one map from query window to value window,
 * {@code v = floor(q / P) * W + b}: P = W is multi-head attention, P = group * W grouped-query
 * attention. The map is inferred from the parts (P from how many consecutive parts share a value
 * window, b from the first) and named in the term, so chips holding other heads of the same
 * attention build the same term; a chip whose heads follow another map builds another.
 */
final class Heads {

    static Val concat(ShardState st, int axis, List<Val> ins, long[] out) {
        if (ins.isEmpty() || !(ins.getFirst() instanceof Val.Exact first) || first.hidden() == null) {
            return null;
        }
        long w = first.hidden().width();
        int n = ins.size();
        long[] q = new long[n];
        long[] v = new long[n];
        for (int k = 0; k < n; k++) {
            if (!(ins.get(k) instanceof Val.Exact e) || e.hidden() == null || e.term().id() != first.term().id()
                    || e.hidden().width() != w || !e.hidden().at().isConstant() || e.region().rank() != first.region().rank()
                    || axis >= e.region().rank() || e.region().extent(axis) != w || !e.region().origin(axis).isConstant()) {
                return null;
            }
            for (int a = 0; a < e.region().rank(); a++) {
                if (a != axis && (!e.region().origin(a).equals(first.region().origin(a)) || e.region().extent(a) != first.region().extent(a))) {
                    return null;
                }
            }
            q[k] = e.hidden().at().constant();
            v[k] = e.region().origin(axis).constant();
            if (Math.floorMod(q[k], w) != 0 || q[k] != q[0] + k * w || e.hidden().shift() != v[k] - q[k]) {
                return null;
            }
        }
        int run = 1;
        while (run < n && v[run] == v[0]) {
            run++;
        }
        long p = run * w;
        long b = v[0] - Math.floorDiv(q[0], p) * w;
        for (int k = 0; k < n; k++) {
            if (v[k] != Math.floorDiv(q[k], p) * w + b) {
                return null;
            }
        }
        Term t = first.term();
        Term heads = st.terms.of("heads(" + t.id() + ";" + axis + ";w" + w + ";p" + p + ";b" + b + ")", () -> "heads(" + t.text() + ")", t.label(),
                Terms.unboundedLo(t.rank()), Terms.unboundedHi(t.rank()), t);
        Sym[] o = first.region().origins();
        o[axis] = Sym.of(q[0]);
        return new Val.Exact(heads, new Region(o, out));
    }

    private Heads() {}
}
