package org.stagecheck.interp.eval;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.stagecheck.spec.ir.Group;
import org.stagecheck.spec.ir.Site;

/**
 * What each stage of a prepared program resolves the same way in every run, kept after its first
 * successful resolution and shared by all runs of the program (concurrent ones included): the
 * region of a Load, Store or Slice whose offsets are constants, with its bounds already checked,
 * and the receivers of each multicast group.
 * A resolution that faults is never kept, so a faulting stage faults the same way every run.
 */
public final class StagePlans {
    private final AtomicReferenceArray<Region> regions;
    private final ConcurrentHashMap<String, Set<Site>> receivers = new ConcurrentHashMap<>();

    /** Nothing resolved yet, for a program of {@code stages} stages. */
    public StagePlans(int stages) {
        this.regions = new AtomicReferenceArray<>(stages);
    }

    Region region(int stage) {
        return regions.get(stage);
    }

    void keepRegion(int stage, Region region) {
        regions.set(stage, region);
    }

    /** The receiving cores of {@code group} (a group's declaration never changes between runs). */
    Set<Site> receivers(Group group) {
        return receivers.computeIfAbsent(group.name(), n -> Set.copyOf(group.receivers()));
    }
}
