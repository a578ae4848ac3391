package org.stagecheck.spec.gen;

/**
 * What {@link RandomPrograms} generates: the machine ({@code chips} chips of {@code width x height}
 * cores), the number of stages to reach, and the largest extent of a generated dimension.
 *
 * <p>Every generated program contains all six stage kinds (brief, "Stages"), so the machine must
 * allow an {@code AllReduce} over partials on distinct chips ({@code chips >= 2}) and a multicast
 * group with a receiver ({@code width * height >= 2}).
 *
 * @param chips    chips of the machine, at least 2
 * @param width    cores per row of a chip
 * @param height   cores per column of a chip; {@code width * height >= 2}
 * @param stages   the stage count to reach: generation stops at the first fragment boundary at or
 *                 past it, and never before the first full round of fragments (about 40 stages),
 *                 which covers every kind, pattern and op
 * @param maxDim   the largest extent of a generated dimension (at least 2); small values keep the
 *                 programs cheap to interpret
 */
public record GenOptions(int chips, int width, int height, int stages, int maxDim) {
    public GenOptions {
        if (chips < 2) {
            throw new IllegalArgumentException("a generated program has an AllReduce across chips: it needs at least 2 chips, not " + chips);
        }
        if (width < 1 || height < 1 || (long) width * height < 2) {
            throw new IllegalArgumentException("a generated program multicasts to a group with a receiver: a chip needs at least 2 cores, not " + width + "x" + height);
        }
        if (stages < 0) {
            throw new IllegalArgumentException("the stage count cannot be negative: " + stages);
        }
        if (maxDim < 2) {
            throw new IllegalArgumentException("maxDim must be at least 2, not " + maxDim);
        }
    }

    /** Two chips of 2x2 cores, one full round of fragments, dimensions up to 8. */
    public static GenOptions small() {
        return new GenOptions(2, 2, 2, 0, 8);
    }

    /** {@code stages} stages on a machine of {@code chips} chips of 4x4 cores, dimensions up to 8. */
    public static GenOptions ofStages(int chips, int stages) {
        return new GenOptions(chips, 4, 4, stages, 8);
    }
}
