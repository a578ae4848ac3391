package org.stagecheck.verifier.shard;

import java.util.List;
import org.stagecheck.spec.cert.HeadLayout;
import org.stagecheck.verifier.Code;

/**
 * The outputs of attention heads laid side by side (docs/verifier.md, "Hidden positions"). Each
 * part is one term held at hidden position {@code q} (its query window) with its visible window
 * on the concat axis at {@code v} (its value window) and key distance {@code shift}. The parts
 * form a window of one logical attention output when their query windows are consecutive and
 * every part follows one map from query window to value window,
 * {@code v = (floor(q / P) mod M) * W + b} (no {@code mod M} when the value windows never repeat):
 * P = W is multi-head attention, P = group * W grouped-query attention with contiguous groups,
 * P = W and M = G grouped-query attention with G interleaved groups. The map is inferred from
 * the parts (P from how many consecutive parts share a value window, M from where the first value
 * window comes back, b from the first), or given by the certificate's head layout, and named in
 * the term, so chips holding other heads of the same attention build the same term; a chip whose
 * heads follow another map builds another. With a head layout declared, one head alone is placed
 * too ({@link #place}): a split by key/value head with interleaved groups gives a chip query heads
 * that are no contiguous window.
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
        HeadLayout layout = st.decls.heads();
        String map;
        if (layout != null && inLayout(layout, q[n - 1], w)) {
            for (int k = 0; k < n; k++) {
                if (v[k] != kvWindow(layout, q[k], w)) {
                    return mismatch(st, layout, q[k], v[k], w, k);
                }
            }
            map = layoutMap(layout, w);
        } else {
            map = inferred(q, v, w);
        }
        if (map == null) {
            return null;
        }
        Sym[] o = first.region().origins();
        o[axis] = Sym.of(q[0]);
        return new Val.Exact(term(st, first.term(), axis, w, map), new Region(o, out));
    }

    /**
     * One head's output {@code e} (held at hidden query window {@code q}, its value window on
     * {@code axis}) placed by the certificate's head layout: the window {@code [q, q + W)} on
     * {@code axis} of the attention output, the term the heads side by side make. Tainted after a
     * {@code HEAD_KV_MISMATCH} finding when its value window is not the key/value head the layout
     * gives query head {@code q / W}; null when no layout is declared or {@code e} is no head's
     * output on that axis.
     */
    static Val place(ShardState st, Val.Exact e, int axis) {
        HeadLayout layout = st.decls.heads();
        if (layout == null || e.hidden() == null || !e.hidden().at().isConstant()) {
            return null;
        }
        Region r = e.region();
        long w = e.hidden().width();
        if (axis >= r.rank() || r.extent(axis) != w || !r.origin(axis).isConstant()) {
            return null;
        }
        long q = e.hidden().at().constant();
        long v = r.origin(axis).constant();
        if (e.hidden().shift() != v - q || Math.floorMod(q, w) != 0 || !inLayout(layout, q, w)) {
            return null;
        }
        if (v != kvWindow(layout, q, w)) {
            return mismatch(st, layout, q, v, w, 0);
        }
        Sym[] o = r.origins();
        o[axis] = Sym.of(q);
        return new Val.Exact(term(st, e.term(), axis, w, layoutMap(layout, w)), new Region(o, r.extents()));
    }

    private static Term term(ShardState st, Term t, int axis, long w, String map) {
        String grouping = map.contains(";m") ? ", key/value head = query head mod " + map.substring(map.indexOf(";m") + 2) : "";
        return st.terms.of("heads(" + t.id() + ";" + axis + ";w" + w + ";" + map + ")", () -> "heads(" + t.text() + grouping + ")", t.label(),
                Terms.unboundedLo(t.rank()), Terms.unboundedHi(t.rank()), t);
    }

    /** Whether query window {@code q} is one of the layout's query heads. */
    private static boolean inLayout(HeadLayout layout, long q, long w) {
        return q >= 0 && q / w < layout.queryHeads();
    }

    /** The value window the layout gives the query head at window {@code q}. */
    private static long kvWindow(HeadLayout layout, long q, long w) {
        return layout.kvHeadOf((int) (q / w)) * w;
    }

    /**
     * The layout's map in the form {@link #inferred} gives it from every head of the attention
     * side by side (value windows from 0): contiguous groups are {@code P = group * W}; interleaved
     * ones {@code P = W, M = G}, except where that is a contiguous map too (one key/value head, or
     * one per query head).
     */
    private static String layoutMap(HeadLayout layout, long w) {
        int h = layout.queryHeads();
        int g = layout.kvHeads();
        return switch (layout.order()) {
            case CONTIGUOUS -> "p" + (h / g) * w + ";b0";
            case INTERLEAVED -> g == 1 ? "p" + h * w + ";b0" : g == h ? "p" + w + ";b0" : "p" + w + ";b0;m" + g;
        };
    }

    /** The map the parts follow, {@code p..;b..} or {@code p..;b..;m..}, or null when they follow none of that form. */
    private static String inferred(long[] q, long[] v, long w) {
        int n = q.length;
        int run = 1;
        while (run < n && v[run] == v[0]) {
            run++;
        }
        long p = run * w;
        long b = v[0] - Math.floorDiv(q[0], p) * w;
        boolean contiguous = true;
        for (int k = 0; k < n && contiguous; k++) {
            contiguous = v[k] == Math.floorDiv(q[k], p) * w + b;
        }
        if (contiguous) {
            return "p" + p + ";b" + b;
        }
        // interleaved groups: the value windows come back to the first one every m blocks of p
        long first = Math.floorDiv(q[0], p);
        long m = 0;
        for (int k = run; k < n && m == 0; k++) {
            if (v[k] == v[0]) {
                m = Math.floorDiv(q[k], p) - first;
            }
        }
        if (m <= 1) {
            return null;
        }
        long bm = v[0] - Math.floorMod(first, m) * w;
        for (int k = 0; k < n; k++) {
            if (v[k] != Math.floorMod(Math.floorDiv(q[k], p), m) * w + bm) {
                return null;
            }
        }
        return "p" + p + ";b" + bm + ";m" + m;
    }

    /** Reports the head at query window {@code q} read through input {@code port} with value window {@code v}; the value is tainted. */
    private static Val mismatch(ShardState st, HeadLayout layout, long q, long v, long w, int port) {
        String buffer = port < st.stage.ins().size() ? st.stage.ins().get(port) : null;
        st.findings.atStage(Code.HEAD_KV_MISMATCH, st.stageIndex, st.stage, "/ins/" + port, buffer,
                "Query head " + q / w + " (columns [" + q + "," + (q + w) + ")) attends with key/value head " + Math.floorDiv(v, w) + " (columns [" + v + ","
                        + (v + w) + ")), but the certificate's " + layout.order().jsonName() + " layout of " + layout.queryHeads() + " query heads over "
                        + layout.kvHeads() + " key/value heads gives it key/value head " + layout.kvHeadOf((int) (q / w)) + ".");
        return Val.TAINTED;
    }

    private Heads() {}
}
