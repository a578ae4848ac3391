package org.stagecheck.verifier.shard;

/**
 * One summand of a partial value: the {@code slices} of contraction {@code term} that a chip
 * holds, where {@code term} is the full value (the contraction over its whole domain
 * {@code [lo, hi)}). A value added on one chip only (a bias or residual) is a <em>whole</em>
 * family: domain {@code [0,1)}, held entirely or not at all (docs/verifier.md, "Partials").
 */
record Family(Term term, Slices slices, long lo, long hi, boolean whole, Term generic, long shift) {

    /**
     * A family; {@code generic} (nullable) is the same contraction with the distance between its
     * operands' windows left open, which is {@code shift} here: when one window of it is used as a
     * plain value (an attention head), the distance becomes part of the hidden position, so heads
     * that pair query and key windows at different distances (grouped-query attention) are still
     * one term.
     */
    Family {
    }

    Family(Term term, Slices slices, long lo, long hi, boolean whole) {
        this(term, slices, lo, hi, whole, null, 0);
    }

    static Family whole(Term term) {
        return new Family(term, Slices.of(0, 1), 0, 1, true);
    }

    /** The family with {@code f} applied to its term (and to its generic form). */
    Family map(java.util.function.UnaryOperator<Term> f) {
        return new Family(f.apply(term), slices, lo, hi, whole, generic == null ? null : f.apply(generic), shift);
    }

    /** The key of the family in a partial's map: a whole family and a contraction of the same term are different summands. */
    int key() {
        return whole ? -term.id() - 1 : term.id();
    }

    boolean complete() {
        return slices.equals(Slices.of(lo, hi));
    }

    Family withTerm(Term t) {
        return new Family(t, slices, lo, hi, whole, null, 0);
    }

    /** {@code w2 over [0,4)}, or {@code b2 (whole)}. */
    String describe() {
        String name = term.label().isEmpty() ? term.text() : term.label();
        return whole ? name + " (added whole)" : name + " over " + slices;
    }
}
