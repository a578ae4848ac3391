package org.stagecheck.cuda.lower;

/**
 * Which kernels the lowering writes (docs/cuda.md, "Fast kernels").
 */
public enum Kernels {
    /**
     * One thread per output element, every accumulation one chain in the reference's order: bit
     * for bit the reference (the default).
     */
    EXACT,
    /**
     * As {@link #EXACT}, except that a MatMul with few output rows and a Reduce over a long axis
     * are split ({@link Split}): partial results over chunks of the contraction, computed in
     * parallel, then combined in a fixed order by a second kernel. Deterministic run to run; within
     * the golden {@code derived} tolerance of the reference, not bit-identical to it.
     */
    FAST;

    /** {@code exact} or {@code fast}, as the command line spells it. */
    public String spelling() {
        return switch (this) {
            case EXACT -> "exact";
            case FAST -> "fast";
        };
    }

    /** The mode spelled {@code s} ({@code exact} or {@code fast}), or null for any other word. */
    public static Kernels parse(String s) {
        for (Kernels k : values()) {
            if (k.spelling().equals(s)) {
                return k;
            }
        }
        return null;
    }
}
