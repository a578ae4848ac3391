package org.stagecheck.verifier.shard;

/**
 * One summand of a partial value: the {@code slices} of contraction {@code term} that a chip
 * holds, where {@code term} is the full value (the contraction over its whole domain
 * {@code [lo, hi)}). A value added on one chip only (a bias or residual) is a <em>whole</em>
 * family: domain {@code [0,1)}, held entirely or not at all (docs/verifier.md, "Partials").
 */
record Family(Term term, Slices slices, long lo, long hi, boolean whole, Term generic, long shift, String by, Term tag, boolean share) {

    /**
     * A family; {@code generic} (nullable) is the same contraction with the distance between its
     * operands' windows left open, which is {@code shift} here: when one window of it is used as a
     * plain value (an attention head), the distance becomes part of the hidden position, so heads
     * that pair query and key windows at different distances (grouped-query attention) are still
     * one term.
     *
     * <p>{@code by} (nullable) makes it a sum over the values of an integer index instead of over a
     * contraction axis (docs/verifier.md, "Sums over an index"): {@code term} masked to the index
     * values in {@code slices}, zero elsewhere, the index taking values in {@code [lo, hi)}; so
     * the family is complete when the chips' masks together cover every value the index can take,
     * each once. {@code by} names the index (its element's key) and {@code tag} is the term
     * that keys the family, built from {@code term} and the index, so two masks of one value by
     * different indices are different summands.
     *
     * <p>{@code share} marks a chip's share of a split contraction: one of its operands is a
     * bound tensor the certificate declares a window of a logical tensor on the axis contracted
     * here (a row-parallel weight's rows), so the family is meant to be completed by an
     * all-reduce, never used as a value (docs/verifier.md, "Unreduced outputs").
     */
    Family {
    }

    Family(Term term, Slices slices, long lo, long hi, boolean whole, Term generic, long shift) {
        this(term, slices, lo, hi, whole, generic, shift, null, null, false);
    }

    Family(Term term, Slices slices, long lo, long hi, boolean whole) {
        this(term, slices, lo, hi, whole, null, 0);
    }

    static Family whole(Term term) {
        return new Family(term, Slices.of(0, 1), 0, 1, true);
    }

    /** The family with {@code f} applied to its term (and to its generic form). */
    Family map(java.util.function.UnaryOperator<Term> f) {
        return new Family(f.apply(term), slices, lo, hi, whole, generic == null ? null : f.apply(generic), shift, by,
                tag == null ? null : f.apply(tag), share);
    }

    /**
     * The key of the family in a partial's map: a whole family and a contraction of the same term
     * are different summands, and so is a sum over an index (keyed by its tag, which names the index).
     */
    int key() {
        return whole ? -term.id() - 1 : tag != null ? tag.id() : term.id();
    }

    /** The same family holding {@code s}. */
    Family withSlices(Slices s) {
        return new Family(term, s, lo, hi, whole, generic, shift, by, tag, share);
    }

    boolean complete() {
        return slices.equals(Slices.of(lo, hi));
    }

    Family withTerm(Term t) {
        return new Family(t, slices, lo, hi, whole, null, 0, null, null, share);
    }

    /** {@code w2 over [0,4)}, or {@code b2 (whole)}, or {@code experts_down.l0 for index values [4,8) of [0,8)}. */
    String describe() {
        String name = term.label().isEmpty() ? term.text() : term.label();
        if (by != null) {
            return name + " for index values " + slices + " of [" + lo + "," + hi + ")";
        }
        return whole ? name + " (added whole)" : name + " over " + slices;
    }
}
