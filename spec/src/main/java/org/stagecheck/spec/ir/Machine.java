package org.stagecheck.spec.ir;

/**
 * The target machine: {@code chips} chips, each a grid of {@code width x height} cores
 * (brief, "The machine model").
 */
public record Machine(int chips, int width, int height) {
    public Machine {
        if (chips < 1 || width < 1 || height < 1) {
            throw new IllegalArgumentException("a machine needs at least one chip of at least 1x1 cores");
        }
    }

    /** Whether {@code site} names a core of this machine. */
    public boolean contains(Site site) {
        return site.chip() >= 0 && site.chip() < chips
                && site.x() >= 0 && site.x() < width
                && site.y() >= 0 && site.y() < height;
    }
}
