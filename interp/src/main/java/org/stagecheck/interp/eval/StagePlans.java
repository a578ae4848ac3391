package org.stagecheck.interp.eval;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * What each stage of a prepared program resolves the same way in every run, kept after its first
 * successful resolution and shared by all runs of the program (concurrent ones included): the
 * region of a Load, Store or Slice whose offsets are constants, with its bounds already checked.
 * A resolution that faults is never kept, so a faulting stage faults the same way every run.
 */
public final class StagePlans {
    private final AtomicReferenceArray<Region> regions;

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
}
