package org.stagecheck.passcheck;

import java.util.List;
import org.stagecheck.author.Cut;

/**
 * What PassCheck generates. Random programs ({@link Source#RANDOM}, every stage kind, pattern and
 * op, on {@code chips} chips of up to {@code maxGrid x maxGrid} cores, {@code minStages..maxStages}
 * stages, dimensions up to {@code maxDim}; they carry tensor-parallel shards, all-reduces and
 * multicast groups, with their certificate); windows of the tiny model's authored cuts
 * ({@link Source#AUTHORED}: a cut, then a random run of its stages with what came before fed in
 * from the reference); and the tiny model's cuts split over 2 chips with their certificates
 * ({@link Source#SPLIT}). Each try draws a source with the given weights.
 *
 * @param cuts the authored cuts drawn from (AUTHORED and SPLIT)
 */
public record GenConfig(int minChips, int maxChips, int maxGrid, int minStages, int maxStages, int maxDim,
                        int randomWeight, int authoredWeight, int splitWeight, List<Cut> cuts) {
    /** Where a try's program comes from. */
    public enum Source { RANDOM, AUTHORED, SPLIT }

    public GenConfig {
        if (minChips < 2 || maxChips < minChips) {
            throw new IllegalArgumentException("chips: 2 <= minChips <= maxChips, not " + minChips + ".." + maxChips);
        }
        if (maxGrid < 2 || minStages < 0 || maxStages < minStages || maxDim < 2) {
            throw new IllegalArgumentException("sizes: maxGrid >= 2, 0 <= minStages <= maxStages, maxDim >= 2");
        }
        if (randomWeight < 0 || authoredWeight < 0 || splitWeight < 0 || randomWeight + authoredWeight + splitWeight == 0) {
            throw new IllegalArgumentException("the source weights are non-negative and not all zero");
        }
        cuts = List.copyOf(cuts);
        if ((authoredWeight > 0 || splitWeight > 0) && cuts.isEmpty()) {
            throw new IllegalArgumentException("authored and split programs need at least one cut");
        }
    }

    /**
     * 2-3 chips of up to 3x3 cores, up to 80 stages, dimensions up to 6; random programs 6 in 10
     * tries, authored windows 3 in 10, splits 1 in 10; the cuts decode (ctx 8), decode layer 0,
     * prefill (3 rows) and batch (2 rows).
     */
    public static GenConfig defaults() {
        return new GenConfig(2, 3, 3, 0, 80, 6, 6, 3, 1,
                List.of(Cut.decode(8), Cut.decodeLayer(0, 8), Cut.prefill(3, 8), Cut.batch(2, 8)));
    }

    /** Random programs only. */
    public static GenConfig randomOnly() {
        GenConfig d = defaults();
        return new GenConfig(d.minChips, d.maxChips, d.maxGrid, d.minStages, d.maxStages, d.maxDim, 1, 0, 0, d.cuts);
    }

    public GenConfig withWeights(int random, int authored, int split) {
        return new GenConfig(minChips, maxChips, maxGrid, minStages, maxStages, maxDim, random, authored, split, cuts);
    }

    public GenConfig withStages(int min, int max) {
        return new GenConfig(minChips, maxChips, maxGrid, min, max, maxDim, randomWeight, authoredWeight, splitWeight, cuts);
    }
}
