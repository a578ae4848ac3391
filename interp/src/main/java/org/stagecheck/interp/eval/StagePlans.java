package org.stagecheck.interp.eval;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.stagecheck.spec.ir.Group;
import org.stagecheck.spec.ir.Site;

/**
 * What each stage of a prepared program resolves the same way in every run, kept after its first
 * successful resolution and shared by all runs of the program (concurrent ones included): the
 * region of a Load, Store or Slice whose offsets are constants, with its bounds already checked,
 * the regions a Concat copies its inputs through, the receivers of each multicast group, and
 * whether each Compute stage's op was held to the language's rules.
 * A resolution that faults is never kept, so a faulting stage faults the same way every run.
 */
public final class StagePlans {
    /** Per stage, its regions in the order the stage uses them (one for a Load, Store or Slice; one per input for a Concat). */
    private final AtomicReferenceArray<List<Region>> regions;
    private final ConcurrentHashMap<String, Set<Site>> receivers = new ConcurrentHashMap<>();
    /** Per stage, 1 once its Compute op was held to the language's rules (declarations never change between runs). */
    private final AtomicIntegerArray ruled;

    /** Nothing resolved yet, for a program of {@code stages} stages. */
    public StagePlans(int stages) {
        this.regions = new AtomicReferenceArray<>(stages);
        this.ruled = new AtomicIntegerArray(stages);
    }

    List<Region> regions(int stage) {
        return regions.get(stage);
    }

    void keepRegions(int stage, List<Region> stageRegions) {
        regions.set(stage, List.copyOf(stageRegions));
    }

    boolean ruled(int stage) {
        return ruled.get(stage) == 1;
    }

    void keepRuled(int stage) {
        ruled.set(stage, 1);
    }

    /** The receiving cores of {@code group} (a group's declaration never changes between runs). */
    Set<Site> receivers(Group group) {
        return receivers.computeIfAbsent(group.name(), n -> Set.copyOf(group.receivers()));
    }
}
