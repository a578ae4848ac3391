package org.stagecheck.verifier.shard;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.ir.TensorDecl;

/**
 * Which values are a chip's own share of a split contraction taken as a value
 * (docs/verifier.md, "Unreduced outputs"). A family made by contracting a declared window of a
 * bound tensor along the declared axis (a row-parallel weight's rows) is a share
 * ({@link Family#share()}); when a partial holding such a family before it is complete is used as
 * a plain value (a non-linear op, a store to an output), its demoted term is a <em>root</em>.
 * Every term built from a root depends on which slice this chip held, so an output holding one
 * holds no value of the logical program, whether or not another chip's output is there to
 * compare with.
 *
 * <p>One instance per analysis. Which terms reach a root is memoised by term id, so the checks of
 * all outputs together visit each term once.
 */
final class ChipShares {
    /** Where a share was used as a value: the demotion, and the logical tensor and slices of the share it held. */
    record Root(Demotion why, String logical, Slices slices) {}

    /**
     * A root reached: the demotion on the chip asked about (else another chip's), every chip's
     * demotion of that term, and whether the term asked about is that demoted share itself (not
     * a value computed from it).
     */
    record Reached(Root root, java.util.Collection<Root> everyChip, boolean itself) {}

    /** A term that reaches no root, in {@link #reaches}. */
    private static final int NONE = -1;

    private final ShardState st;
    /** Per declared bound tensor's leaf term (by id), the declared axis. */
    private Map<Integer, Integer> declaredAxes;
    /**
     * The roots by term id, per chip whose stage demoted it: a share of one window is one term on
     * every chip (the window's start held as a hidden position), so each chip's own demotion is kept.
     */
    private final Map<Integer, Map<Integer, Root>> roots = new HashMap<>();
    /** Per term id, a root term it was built from, or {@link #NONE}. */
    private final Map<Integer, Integer> reaches = new HashMap<>();

    ChipShares(ShardState st) {
        this.st = st;
    }

    /** Whether {@code operand} is a declared window of a bound tensor whose declared axis is {@code contracted}. */
    boolean declaredShare(Term operand, int contracted) {
        if (st.decls.isEmpty()) {
            return false;
        }
        if (declaredAxes == null) {
            declaredAxes = new HashMap<>();
            for (TensorDecl t : st.index.program().tensors()) {
                ShardDecl d = st.decls.of(t.name());
                if (d != null && t.role().isBoundBeforeRun() && st.index.tensor(t.name()) == t && d.end() - d.start() < d.extent()) {
                    declaredAxes.put(st.leaf(t).id(), d.axis());
                }
            }
        }
        Integer axis = declaredAxes.get(operand.id());
        return axis != null && axis == contracted;
    }

    /** Records that {@code demoted} is partial {@code p} used as a value, when {@code p} holds part of a share. */
    void demoted(Val.Partial p, Term demoted) {
        if (p.origin() != null && p.origin().pending() != null) {
            return; // an all-reduce left it incomplete: that is the finding (ALLREDUCE_GAP), reported at this use
        }
        for (Family f : p.families().values()) {
            if (f.share() && !f.complete()) {
                Demotion why = st.terms.demotion(demoted);
                if (why != null) {
                    roots.computeIfAbsent(demoted.id(), k -> new HashMap<>()).putIfAbsent(why.stage().site().chip(), new Root(why, f.term().label(), f.slices()));
                }
                return;
            }
        }
    }

    /**
     * The use of a share as a value that {@code t} was built from (directly or not), or null: the
     * demotion made on {@code chip} when there is one, else another chip's.
     */
    Reached reached(Term t, int chip) {
        if (roots.isEmpty()) {
            return null;
        }
        Deque<Term> todo = new ArrayDeque<>();
        todo.push(t);
        while (!todo.isEmpty()) {
            Term u = todo.peek();
            if (reaches.containsKey(u.id())) {
                todo.pop();
                continue;
            }
            int found = roots.containsKey(u.id()) ? u.id() : NONE;
            boolean pending = false;
            if (found == NONE) {
                for (Term s : u.sources()) {
                    if (s == null) {
                        continue;
                    }
                    Integer r = reaches.get(s.id());
                    if (r == null) {
                        todo.push(s);
                        pending = true;
                    } else if (r != NONE) {
                        found = r;
                        break;
                    }
                }
            }
            if (found != NONE || !pending) {
                reaches.put(u.id(), found);
                todo.pop();
            }
        }
        int root = reaches.get(t.id());
        if (root == NONE) {
            return null;
        }
        Map<Integer, Root> byChip = roots.get(root);
        return new Reached(byChip.getOrDefault(chip, byChip.values().iterator().next()), byChip.values(), root == t.id());
    }
}
