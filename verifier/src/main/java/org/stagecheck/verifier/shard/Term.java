package org.stagecheck.verifier.shard;

/**
 * A logical expression: a function of the logical tensors' elements (and of parameters) that
 * means the same on every chip (docs/verifier.md, "Terms"). Terms are hash-consed by
 * {@link Terms}: two equal keys are one term, so comparing values across chips is comparing ids.
 * Anything chip-specific that a value depends on (a window's position, a tensor that is not a
 * declared copy of a logical tensor) is part of its key, so chips holding different values never
 * share a term.
 *
 * @param id    equal exactly when the keys are equal
 * @param key   the canonical definition, over the ids of the terms it is built from
 * @param text  a short readable form for diagnostics
 * @param label the logical tensor the expression is mainly about (for messages)
 * @param lo    per axis, the first index where the term is defined
 * @param hi    per axis, one past the last (Long.MIN_VALUE/MAX_VALUE: unbounded)
 * @param made  where the term was first built: the analysis ({@link Terms#PARENT} or
 *              {@link Terms#CHILD}) and the stage index, so a finding can name the stage where a
 *              program first computed something the other one never did
 * @param sources the terms it was built from (for that trail)
 */
record Term(int id, String key, String text, String label, long[] lo, long[] hi, Made made, Term[] sources) {

    /** The analysis ({@code phase}) and stage ({@code stage}, -1 before the first) that first built a term. */
    record Made(int phase, int stage) {}

    int rank() {
        return lo.length;
    }

    /** Whether {@code [from, from + extent)} on {@code axis} is the whole domain. */
    boolean spans(int axis, Sym from, long extent) {
        return axis < rank() && from.isConstant() && from.constant() == lo[axis] && from.constant() + extent == hi[axis];
    }

    boolean bounded(int axis) {
        return axis < rank() && lo[axis] != Long.MIN_VALUE && hi[axis] != Long.MAX_VALUE;
    }

    @Override
    public String toString() {
        return text;
    }
}
