package org.stagecheck.author;

/**
 * How a split program divides a mixture of experts over its chips (docs/author.md, "Mixture of
 * experts"). Either way every chip routes every row itself (the router is replicated), a chip's
 * output of a sparse layer is a partial sum, and one sum all-reduce completes it.
 */
public enum ExpertSplit {
    /** Chip c owns experts {@code [c*E/tp, (c+1)*E/tp)} whole; a chosen expert another chip owns adds 0 here. */
    EXPERT_PARALLEL("experts"),
    /** Every chip holds columns {@code [c*Fm/tp, (c+1)*Fm/tp)} of every expert, as a dense MLP is split. */
    TENSOR_PARALLEL("tensor");

    private final String cliName;

    ExpertSplit(String cliName) {
        this.cliName = cliName;
    }

    /** The spelling of {@code author --expert-split}. */
    public String cliName() {
        return cliName;
    }

    /** The split spelled {@code name}, or null. */
    public static ExpertSplit ofCliName(String name) {
        for (ExpertSplit s : values()) {
            if (s.cliName.equals(name)) {
                return s;
            }
        }
        return null;
    }
}
