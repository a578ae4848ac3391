package org.stagecheck.verifier.shard;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.verifier.Code;

/**
 * The split computes its unsplit parent's program (docs/verifier.md, "The unsplit parent"): both
 * programs are analysed with one term table, so a logical expression is one term in both; then
 * every output or state tensor of the parent must be held, element for element, by the split's
 * tensors declared windows of it (or named like it): each element the split writes holds the
 * same term at the same position as the parent's, and the split writes exactly the elements of
 * its window that the parent writes. Chips together must hold the whole logical tensor.
 *
 * <p>A store that the checker cannot place (an indirect pattern, stores overlapping in ways it
 * cannot order) makes the tensor not comparable, which is a finding: the promise is not shown.
 *
 * <p>Over 300 lines because its two comparisons (store by store in the same order, and by the
 * stores visible at the end) and the message of a mismatch share one region arithmetic.
 */
final class UnsplitOutputs {
    /** More stores than this to one output, and the comparison (quadratic in stores) is refused. */
    static final int MAX_STORES = 512;

    private final ShardState parent;
    private final ShardState child;

    UnsplitOutputs(ShardState parent, ShardState child) {
        this.parent = parent;
        this.child = child;
        // the split's positions and the parent's are compared: the split's ranges bound both
        child.positions.alsoKnow(parent.positions);
    }

    /** Compares; every difference, an output of either program without a counterpart included, is a finding. */
    List<String> check() {
        Map<String, List<TensorDecl>> byLogical = new LinkedHashMap<>();
        for (TensorDecl t : child.index.program().tensors()) {
            if (t.role().isResult() && child.index.tensor(t.name()) == t) {
                ShardDecl d = child.decls.of(t.name());
                byLogical.computeIfAbsent(d != null ? d.logical() : t.name(), k -> new ArrayList<>()).add(t);
            }
        }
        for (TensorDecl p : parent.index.program().tensors()) {
            if (!p.role().isResult() || parent.index.tensor(p.name()) != p) {
                continue;
            }
            List<TensorDecl> parts = byLogical.remove(p.name());
            if (parts == null) {
                child.findings.atField(Code.LOGICAL_OUTPUT_DIFFERS, "/tensors", null, "The unsplit program's " + p.role().jsonName() + " tensor '"
                        + p.name() + "' has no counterpart in the split: no tensor is named so or declared a window of it.");
                continue;
            }
            if (covers(p, parts)) {
                for (TensorDecl c : parts) {
                    compare(p, c);
                }
            }
        }
        // an output or state tensor the unsplit program does not have: the split computes (or claims) another program
        for (Map.Entry<String, List<TensorDecl>> e : byLogical.entrySet()) {
            for (TensorDecl c : e.getValue()) {
                String named = child.decls.of(c.name()) != null ? "declared a window of logical tensor '" + e.getKey() + "'" : "named so";
                child.findings.atField(Code.LOGICAL_OUTPUT_DIFFERS, "/tensors", null, "Tensor '" + c.name() + "' (chip " + c.chip() + ") is an "
                        + c.role().jsonName() + " " + named + ", but the unsplit program has no output or state tensor '" + e.getKey()
                        + "': the split writes what its unsplit program does not.");
            }
        }
        return List.of();
    }

    /** Whether the split's windows of {@code p} have its dtype and shape and together hold all of it; a finding when not. */
    private boolean covers(TensorDecl p, List<TensorDecl> parts) {
        Region whole = Region.at0(dims(p));
        for (TensorDecl c : parts) {
            Region h = child.memory(c).holding;
            if (c.dtype() != p.dtype() || h.rank() != whole.rank() || whole.offsetOf(h) == null) {
                return differs(p, c, -1, "is declared a window " + h + " of it as " + c.dtype().jsonName() + ", but the unsplit tensor is "
                        + p.dtype().jsonName() + " " + whole + ".", List.of());
            }
        }
        int axis = -1;
        Slices held = null;
        for (TensorDecl c : parts) {
            Region h = child.memory(c).holding;
            int narrow = -1;
            for (int a = 0; a < h.rank(); a++) {
                if (h.extent(a) != whole.extent(a)) {
                    narrow = narrow == -1 ? a : -2;
                }
            }
            if (narrow == -1) {
                return true; // one chip holds all of it (a replica); every part is compared below
            }
            if (narrow == -2 || (axis != -1 && axis != narrow)) {
                axis = -2;
                continue;
            }
            axis = narrow;
            Slices s = Slices.of(h.origin(narrow).constant(), h.origin(narrow).constant() + h.extent(narrow));
            held = held == null ? s : held.union(s);
        }
        if (axis >= 0 && held.equals(Slices.of(0, whole.extent(axis)))) {
            return true;
        }
        TensorDecl first = parts.getFirst();
        return differs(p, first, -1, "and the split's tensors " + parts.stream().map(TensorDecl::name).toList()
                + " do not together hold all of it" + (held == null ? "" : " (on axis " + axis + " they hold " + held + ")") + ".", List.of());
    }

    private void compare(TensorDecl p, TensorDecl c) {
        TensorMemory pm = parent.memory(p);
        TensorMemory cm = child.memory(c);
        Positions positions = child.positions;
        if (lockstep(pm, cm, positions)) {
            return;
        }
        List<TensorMemory.Write> pw = visible(pm, positions);
        List<TensorMemory.Write> cw = visible(cm, positions);
        if (pw == null || cw == null) {
            differs(p, c, cm.lastStore, "but the stores to " + (pw == null ? "the unsplit tensor" : "it")
                    + " cannot be compared (an indirect or strided store, stores overlapping in an order the checker does not follow, or more than "
                    + MAX_STORES + " of them).", List.of());
            return;
        }
        long written = 0;
        long matched = 0;
        for (TensorMemory.Write w : cw) {
            if (!(w.value() instanceof Val.Exact ec)) {
                return; // a value downstream of a finding, already reported
            }
            written += volume(w.region());
            for (TensorMemory.Write u : pw) {
                long[] overlap = overlap(w.region(), u.region(), pm.holding, positions);
                if (overlap == null) {
                    differs(p, c, w.stage(), "but its store " + w.region() + " and the unsplit program's " + u.region()
                            + " cannot be placed relative to each other.", List.of());
                    return;
                }
                if (product(overlap) == 0) {
                    continue;
                }
                if (!(u.value() instanceof Val.Exact eu) || !same(ec, w.region(), eu, u.region())) {
                    mismatch(p, c, w, ec, u);
                    return;
                }
                matched += product(overlap);
            }
        }
        long expected = 0;
        for (TensorMemory.Write u : pw) {
            long[] overlap = overlap(cm.holding, u.region(), pm.holding, positions);
            if (overlap == null) {
                differs(p, c, cm.lastStore, "but the unsplit program's store " + u.region() + " cannot be placed relative to it.", List.of());
                return;
            }
            expected += product(overlap);
        }
        if (matched != written || expected != written) {
            differs(p, c, cm.lastStore, matched != written
                    ? "but the split writes elements of it that the unsplit program does not write."
                    : "but the split writes " + written + " of the " + expected + " elements of its window that the unsplit program writes.", List.of());
        }
    }

    /**
     * Whether the split stored, in the same order, what the parent stored into the split's window:
     * store k of the split is the parent's k-th store that reaches the window, cut to it, with the
     * same value at the same distance. Then the final contents agree whatever the stores overlap
     * (a cache row at a position the checker cannot bound, written by two rows' stages).
     */
    private static boolean lockstep(TensorMemory pm, TensorMemory cm, Positions positions) {
        List<TensorMemory.Write> reaching = new ArrayList<>();
        for (TensorMemory.Write u : pm.history) {
            if (u.region() == null) {
                return false;
            }
            if (!u.region().disjointFrom(cm.holding, positions)) {
                reaching.add(u);
            }
        }
        if (reaching.size() != cm.history.size()) {
            return false;
        }
        for (int i = 0; i < reaching.size(); i++) {
            TensorMemory.Write u = reaching.get(i);
            TensorMemory.Write w = cm.history.get(i);
            if (w.value() instanceof Val.Tainted) {
                continue; // downstream of a finding, already reported
            }
            Region cut = cut(u.region(), cm.holding, pm.holding);
            if (cut == null || w.region() == null || !w.region().equals(cut)
                    || !(w.value() instanceof Val.Exact ec) || !(u.value() instanceof Val.Exact eu) || !same(ec, w.region(), eu, u.region())) {
                return false;
            }
        }
        return true;
    }

    /** Region {@code r} cut to {@code window} (which differs from {@code whole} on constant axes only); null when it cannot be told. */
    private static Region cut(Region r, Region window, Region whole) {
        if (r.rank() != window.rank() || r.rank() != whole.rank()) {
            return null;
        }
        Sym[] o = new Sym[r.rank()];
        long[] e = new long[r.rank()];
        for (int a = 0; a < r.rank(); a++) {
            if (spans(window, whole, a)) {
                o[a] = r.origin(a);
                e[a] = r.extent(a);
                continue;
            }
            if (!r.origin(a).isConstant() || !window.origin(a).isConstant()) {
                return null;
            }
            long lo = Math.max(r.origin(a).constant(), window.origin(a).constant());
            long hi = Math.min(r.origin(a).constant() + r.extent(a), window.origin(a).constant() + window.extent(a));
            if (hi <= lo) {
                return null;
            }
            o[a] = Sym.of(lo);
            e[a] = hi - lo;
        }
        return new Region(o, e);
    }

    /** The same term at the same distance from where it was stored (and the same hidden position). */
    private static boolean same(Val.Exact a, Region wa, Val.Exact b, Region wb) {
        if (a.term().id() != b.term().id() || !Objects.equals(a.hidden(), b.hidden()) || a.region().rank() != wa.rank() || b.region().rank() != wb.rank()) {
            return false;
        }
        for (int ax = 0; ax < wa.rank(); ax++) {
            if (!shift(a.region().origin(ax), wa.origin(ax)).equals(shift(b.region().origin(ax), wb.origin(ax)))) {
                return false;
            }
        }
        return true;
    }

    static String shift(Sym value, Sym where) {
        Long d = value.minus(where);
        return d != null ? Long.toString(d) : value.key() + "-" + where.key();
    }

    /**
     * The stores still visible at the end, newest first: a store inside a later one is overwritten.
     * Null when they cannot be compared (a region that is not a box, overlaps the checker cannot
     * order, too many stores).
     */
    static List<TensorMemory.Write> visible(TensorMemory m) {
        return visible(m, null);
    }

    /** The same, judging two stores disjoint when they are in every run ({@code positions} not null). */
    static List<TensorMemory.Write> visible(TensorMemory m, Positions positions) {
        if (m.history.size() > MAX_STORES) {
            return null;
        }
        List<TensorMemory.Write> out = new ArrayList<>();
        for (int i = m.history.size() - 1; i >= 0; i--) {
            TensorMemory.Write w = m.history.get(i);
            if (w.region() == null) {
                return null;
            }
            boolean hidden = false;
            for (TensorMemory.Write later : out) {
                if (later.region().offsetOf(w.region()) != null) {
                    hidden = true;
                    break;
                }
                if (!later.region().disjointFrom(w.region(), positions)) {
                    return null;
                }
            }
            if (!hidden) {
                out.add(w);
            }
        }
        return out;
    }

    /**
     * Per axis, how many elements boxes {@code a} and {@code b} share in every run; null when their
     * distance is unknown on an axis that neither spans whole ({@code whole}: the logical tensor's
     * box) and the ranges of its sources show neither apart nor one inside the other.
     */
    private static long[] overlap(Region a, Region b, Region whole, Positions positions) {
        if (a.rank() != b.rank() || a.rank() != whole.rank()) {
            return null;
        }
        long[] out = new long[a.rank()];
        for (int ax = 0; ax < a.rank(); ax++) {
            Long d = b.origin(ax).minus(a.origin(ax));
            if (d != null) {
                out[ax] = Math.max(0, Math.min(a.extent(ax), d + b.extent(ax)) - Math.max(0, d));
            } else if (spans(b, whole, ax)) {
                out[ax] = a.extent(ax);
            } else if (spans(a, whole, ax)) {
                out[ax] = b.extent(ax);
            } else if (positions.apart(a.origin(ax), a.extent(ax), b.origin(ax), b.extent(ax))) {
                out[ax] = 0;
            } else if (positions.inside(a.origin(ax), a.extent(ax), b.origin(ax), b.extent(ax))) {
                out[ax] = b.extent(ax);
            } else if (positions.inside(b.origin(ax), b.extent(ax), a.origin(ax), a.extent(ax))) {
                out[ax] = a.extent(ax);
            } else {
                return null;
            }
        }
        return out;
    }

    private static boolean spans(Region r, Region whole, int ax) {
        return r.origin(ax).equals(whole.origin(ax)) && r.extent(ax) == whole.extent(ax);
    }

    static long volume(Region r) {
        long v = 1;
        for (int a = 0; a < r.rank(); a++) {
            v *= r.extent(a);
        }
        return v;
    }

    private static long product(long[] xs) {
        long v = 1;
        for (long x : xs) {
            v *= x;
        }
        return v;
    }

    private static long[] dims(TensorDecl t) {
        long[] d = new long[t.shape().rank()];
        for (int a = 0; a < d.length; a++) {
            d[a] = t.shape().dim(a);
        }
        return d;
    }

    /** The split's store holds another term than the parent's at the same elements: say which, and where the split's diverged. */
    private void mismatch(TensorDecl p, TensorDecl c, TensorMemory.Write w, Val.Exact ec, TensorMemory.Write u) {
        if (child.reportDemotions(List.of(ec.term()), Code.PARTIAL_STORE)) {
            return; // a partial stored as this chip's share: that is the finding
        }
        String theirs = u.value() instanceof Val.Exact eu ? eu.term().text() : "no value the checker follows";
        String diff = u.value() instanceof Val.Exact eu ? summandDiff(ec.term(), eu.term()) + sameText(ec, w.region(), eu, u.region()) : "";
        differs(p, c, w.stage(), "but its store " + w.region() + " holds " + ec.term().text() + " where the unsplit program's holds " + theirs
                + diff + ": the split computes another program.", divergence(ec.term()));
    }

    /**
     * When both stores print the same expression, what differs: where each holds it relative to
     * its store ({@link #same} compares that too), or the first subterms that differ
     * ({@link TermDifference}); else the empty text.
     */
    private static String sameText(Val.Exact mine, Region myStore, Val.Exact theirs, Region theirStore) {
        if (!mine.term().text().equals(theirs.term().text())) {
            return "";
        }
        if (mine.term() != theirs.term()) {
            return " (the texts are the same; they differ" + TermDifference.of(mine.term(), theirs.term()) + ")";
        }
        List<String> axes = new ArrayList<>();
        for (int ax = 0; ax < myStore.rank() && ax < mine.region().rank() && ax < theirs.region().rank(); ax++) {
            String a = shift(mine.region().origin(ax), myStore.origin(ax));
            String b = shift(theirs.region().origin(ax), theirStore.origin(ax));
            if (!a.equals(b)) {
                axes.add("on axis " + ax + " the split's store starts at its element " + a + " and the unsplit program's at " + b);
            }
        }
        return axes.isEmpty() ? " (the same expression at the same position, in another hidden position)"
                : " (the same expression, stored from another position: " + String.join("; ", axes) + ")";
    }

    /** For two sums, the summands one has more often than the other. */
    private String summandDiff(Term mine, Term theirs) {
        List<Term> a = summands(mine);
        List<Term> b = summands(theirs);
        List<String> extra = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        List<Term> rest = new ArrayList<>(b);
        for (Term t : a) {
            if (!rest.remove(t)) {
                extra.add(t.text());
            }
        }
        for (Term t : rest) {
            missing.add(t.text());
        }
        if (a.size() == 1 && b.size() == 1) {
            return "";
        }
        return " (summands the split adds: " + (extra.isEmpty() ? "none" : String.join(", ", extra)) + "; summands it leaves out: "
                + (missing.isEmpty() ? "none" : String.join(", ", missing)) + ")";
    }

    private List<Term> summands(Term t) {
        Terms.Flat f = child.terms.flat(t);
        return f != null && f.op().equals("sum") ? f.parts() : List.of(t);
    }

    /**
     * The stages where the split first computed what the parent never does, from the innermost
     * (its sources all computed by the parent too) out to the stored value: one line per stage.
     */
    private List<String> divergence(Term t) {
        List<String> out = new ArrayList<>();
        int lastStage = Integer.MIN_VALUE;
        for (Term at = t; at != null && at.made().phase() == Terms.CHILD; ) {
            int stage = at.made().stage();
            if (stage != lastStage && stage >= 0 && stage < child.index.program().stages().size()) {
                out.add("#" + stage + " " + child.index.program().stages().get(stage).id() + ": computes " + at.text()
                        + ", which the unsplit program never computes");
                lastStage = stage;
            }
            Term next = null;
            for (Term s : at.sources()) {
                if (s != null && s.made().phase() == Terms.CHILD) {
                    next = s;
                    break;
                }
            }
            at = next;
        }
        return out.reversed();
    }

    private boolean differs(TensorDecl p, TensorDecl c, int stage, String what, List<String> trail) {
        String message = "Tensor '" + c.name() + "' (chip " + c.chip() + ") stands for the unsplit program's " + p.role().jsonName() + " tensor '"
                + p.name() + "', " + what;
        if (stage >= 0) {
            child.findings.atStage(Code.LOGICAL_OUTPUT_DIFFERS, stage, child.index.program().stages().get(stage), "/ins/0", null, message, trail);
        } else {
            child.findings.atField(Code.LOGICAL_OUTPUT_DIFFERS, "/tensors", null, message);
        }
        return false;
    }
}
