package org.stagecheck.verifier.shard;

import java.util.ArrayList;
import java.util.List;

/**
 * The selects with one branch 0 of one verification, {@code select(c, a, 0)} and
 * {@code select(c, 0, b)}, by their condition, so that a sum holding one of each with the same
 * condition is found to be {@code select(c, a, b)} (docs/verifier.md, "Canonical sums"): a select
 * between two partials is each branch masked, and the all-reduce's sum of the two masked sums is
 * the select of the sums.
 */
final class Selects {
    /** {@code select(cond, value, 0)} when {@code whereTrue}, else {@code select(cond, 0, value)}. */
    record Half(Term select, Term cond, Term value, boolean whereTrue) {}

    private final IdMap<Half> byId = new IdMap<>();
    private final IdMap<List<Half>> byCond = new IdMap<>();

    /** Records {@code select = select(args)} when exactly one of its branches is the constant 0. */
    void record(Term select, List<Term> args) {
        if (args.size() != 3 || byId.containsKey(select.id())) {
            return;
        }
        boolean zeroThen = zero(args.get(1));
        boolean zeroElse = zero(args.get(2));
        if (zeroThen == zeroElse) {
            return;
        }
        Half h = new Half(select, args.get(0), zeroElse ? args.get(1) : args.get(2), zeroElse);
        byId.put(select.id(), h);
        List<Half> onCond = byCond.get(args.get(0).id());
        if (onCond == null) {
            onCond = new ArrayList<>();
            byCond.put(args.get(0).id(), onCond);
        }
        onCond.add(h);
    }

    /** The half select {@code t} is, or null. */
    Half half(Term t) {
        return byId.get(t.id());
    }

    /** The half selects on condition {@code cond} with the other branch 0 than {@code h}'s, oldest first. */
    List<Half> complements(Half h) {
        List<Half> out = new ArrayList<>();
        List<Half> onCond = byCond.get(h.cond().id());
        for (Half o : onCond == null ? List.<Half>of() : onCond) {
            if (o.whereTrue() != h.whereTrue()) {
                out.add(o);
            }
        }
        return out;
    }

    private static boolean zero(Term t) {
        return t.leafKey().equals("cf:0.0") || t.leafKey().equals("cf:-0.0") || t.leafKey().equals("ci:0");
    }
}
