package org.stagecheck.verifier.shard;

/**
 * A position on one axis of a logical index space: {@code constant + symbolic}, where the
 * symbolic part is the canonical text of the non-constant terms of an offset (parameters, and
 * the values of one-element buffers named by the term they hold), empty for a constant
 * (docs/verifier.md, "Regions"). Two positions with the same symbolic part differ by a known
 * constant; with different ones nothing is known about their distance.
 */
record Sym(long constant, String symbolic) {
    static final Sym ZERO = new Sym(0, "");

    static Sym of(long c) {
        return c == 0 ? ZERO : new Sym(c, "");
    }

    boolean isConstant() {
        return symbolic.isEmpty();
    }

    Sym plus(long d) {
        return new Sym(constant + d, symbolic);
    }

    /** {@code this - other} when it is a known constant, else null. */
    Long minus(Sym other) {
        return symbolic.equals(other.symbolic) ? constant - other.constant : null;
    }

    /** The text that identifies this position in a term key. */
    String key() {
        return symbolic.isEmpty() ? Long.toString(constant) : symbolic + (constant == 0 ? "" : (constant > 0 ? "+" : "") + constant);
    }

    /**
     * Equal when both parts are: written out, since the checker compares frames of positions at
     * every stage ({@link Align}) and the generated record equality went through a method handle
     * per component. (The record's hash code, of the same two parts, stays.)
     */
    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof Sym other && constant == other.constant && symbolic.equals(other.symbolic);
    }

    @Override
    public String toString() {
        return key();
    }
}
