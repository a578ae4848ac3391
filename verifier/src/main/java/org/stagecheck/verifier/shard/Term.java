package org.stagecheck.verifier.shard;

import java.util.function.Supplier;

/**
 * A logical expression: a function of the logical tensors' elements (and of parameters) that
 * means the same on every chip (docs/verifier.md, "Terms"). Terms are hash-consed by
 * {@link Terms}: two equal keys are one term, so comparing values across chips is comparing ids.
 * Anything chip-specific that a value depends on (a window's position, a tensor that is not a
 * declared copy of a logical tensor) is part of its key, so chips holding different values never
 * share a term.
 *
 * <p>Its readable text is made only when a diagnostic asks for it: building it for every term
 * was a large part of the checker's time and memory on big programs (docs/verifier.md, "Scale").
 */
final class Term {
    private final int id;
    private final String key;
    private Supplier<String> textOf;
    private String text;
    private final String label;
    private final long[] lo;
    private final long[] hi;
    private final Made made;
    private final Term[] sources;

    /** The analysis ({@code phase}) and stage ({@code stage}, -1 before the first) that first built a term. */
    record Made(int phase, int stage) {}

    /**
     * @param id      equal exactly when the keys are equal
     * @param key     the canonical definition, over the ids of the terms it is built from
     * @param text    a short readable form for diagnostics, made on demand
     * @param label   the logical tensor the expression is mainly about (for messages)
     * @param lo      per axis, the first index where the term is defined
     * @param hi      per axis, one past the last (Long.MIN_VALUE/MAX_VALUE: unbounded)
     * @param made    where the term was first built: the analysis ({@link Terms#PARENT} or
     *                {@link Terms#CHILD}) and the stage index, so a finding can name the stage where
     *                a program first computed something the other one never did
     * @param sources the terms it was built from (for that trail)
     */
    Term(int id, String key, Supplier<String> text, String label, long[] lo, long[] hi, Made made, Term[] sources) {
        this.id = id;
        this.key = key;
        this.textOf = text;
        this.label = label;
        this.lo = lo;
        this.hi = hi;
        this.made = made;
        this.sources = sources;
    }

    int id() {
        return id;
    }

    String key() {
        return key;
    }

    /** The readable form, at most {@value Terms#TEXT_LIMIT} characters and an ellipsis. */
    String text() {
        if (text == null) {
            String t = textOf.get();
            text = t.length() > Terms.TEXT_LIMIT ? t.substring(0, Terms.TEXT_LIMIT) + "..." : t;
            textOf = null;
        }
        return text;
    }

    String label() {
        return label;
    }

    long[] lo() {
        return lo;
    }

    long[] hi() {
        return hi;
    }

    Made made() {
        return made;
    }

    Term[] sources() {
        return sources;
    }

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
        return text();
    }
}
