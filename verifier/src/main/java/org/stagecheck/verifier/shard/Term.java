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
    /** Made on first use for a plain operation (from its {@link Terms.OpKey}). */
    private String key;
    private Supplier<String> textOf;
    private String text;
    private final String label;
    private final long[] lo;
    private final long[] hi;
    private final Made made;
    private final Term[] sources;
    /** The table that made it (its readable text is rendered to a bounded depth there). */
    private final Terms owner;
    /** A canonical sum, max or min: its operation and operands; null for any other term. */
    private final Terms.Form form;
    /**
     * The last canonical op built from this term and one more operand, and its result: a chain
     * ({@code acc = acc + x_i} on every chip, in the parent and the split) builds each step once
     * and finds it again here, without comparing operands.
     */
    private String stepOp;
    private Term stepPlus;
    private Term stepResult;

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
    Term(int id, String key, Supplier<String> text, String label, long[] lo, long[] hi, Made made, Term[] sources, Terms owner) {
        this(id, key, text, label, lo, hi, made, sources, owner, null);
    }

    /** A canonical sum, max or min of the operands {@code form} names. */
    Term(int id, String key, Supplier<String> text, String label, long[] lo, long[] hi, Made made, Term[] sources, Terms owner,
         Terms.Form form) {
        this.id = id;
        this.owner = owner;
        this.form = form;
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
        if (key == null && form instanceof Terms.OpKey k) {
            key = k.key();
        }
        return key;
    }

    /**
     * The readable form, at most {@value Terms#TEXT_LIMIT} characters and an ellipsis. A term
     * nested deeper than {@value Terms#TEXT_DEPTH} levels below the one being rendered is
     * {@code ...}: a term built by a chain of 10^6 stages is rendered without recursing 10^6 deep.
     */
    String text() {
        if (text != null) {
            return text;
        }
        Terms.TextDepth depth = owner.textDepth();
        long cutsBefore = depth.cuts();
        if (!depth.enter()) {
            return "...";
        }
        String t;
        try {
            t = textOf.get();
        } finally {
            depth.leave();
        }
        boolean cut = depth.cuts() != cutsBefore;
        t = t.length() > Terms.TEXT_LIMIT ? t.substring(0, Terms.TEXT_LIMIT) + "..." : t;
        if (!cut) {
            // rendered whole: the same text whatever asks for it, so it is kept
            text = t;
            textOf = null;
        }
        return t;
    }

    /** The term {@code stepOp(this, plus)} when it was the last such step built from this term, else null. */
    Term step(String op, Term plus) {
        return stepPlus == plus && op.equals(stepOp) ? stepResult : null;
    }

    void step(String op, Term plus, Term result) {
        stepOp = op;
        stepPlus = plus;
        stepResult = result;
    }

    /** The operation of a canonical sum, max or min ({@code "sum"}, {@code "max"}, {@code "min"}), or null. */
    String flatOp() {
        return form instanceof Terms.FlatKey f ? f.op() : null;
    }

    /** The operands of a canonical sum, max or min other than its folded constant, or null. */
    Summands operands() {
        return form instanceof Terms.FlatKey f ? f.operands() : null;
    }

    /** The folded constant operand of a canonical sum (null when it has none, or for any other term). */
    Term constant() {
        return form instanceof Terms.FlatKey f ? f.constant() : null;
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
