package org.stagecheck.golden.debug;

import java.util.List;

/**
 * Where a diff places the fault.
 *
 * @param stageIndex the first divergent stage (reference order), or -1 when only a DRAM tensor
 *                   diverges and no recorded stage does
 * @param stageId    its id, or null
 * @param kind       its kind, or null
 * @param tensor     the diverging DRAM tensor when {@code stageIndex} is -1, else null
 * @param suspects   the stage ids that may hold the fault, in reference order: the divergent stage
 *                   and the unrecorded stages between it and the nearest recorded values; one id
 *                   when the fault is pinned to a stage
 * @param confirmed  whether recomputing the stage alone from the backend's own inputs reproduces
 *                   the disagreement (always true for a trace diff, whose inputs agree)
 */
public record Divergence(int stageIndex, String stageId, String kind, String tensor, List<String> suspects, boolean confirmed) {
    public Divergence {
        suspects = List.copyOf(suspects);
    }

    /** Whether the fault is pinned to one stage. */
    public boolean pinned() {
        return stageIndex >= 0 && suspects.size() == 1;
    }
}
