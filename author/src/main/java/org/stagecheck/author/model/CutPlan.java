package org.stagecheck.author.model;

import org.stagecheck.author.Cut;

/**
 * What a cut's program contains: its step (which fixes rows, positions and the cache), whether it
 * starts at the embedding, which layers it runs, and whether it ends at the head.
 */
record CutPlan(Cut.Step step, boolean embed, int firstLayer, int endLayer, boolean head, int slots) {

    /**
     * The plan of {@code cut} for a model of {@code layers} layers whose KV cache keeps
     * {@code slots} rows per sequence ({@code ctx}, or the sliding window when it is smaller).
     */
    static CutPlan of(Cut cut, int layers, int slots) {
        Cut.Step s = cut.step();
        return switch (cut.part()) {
            case Cut.Part.Whole _ -> new CutPlan(s, true, 0, layers, true, slots);
            case Cut.Part.Embed _ -> new CutPlan(s, true, 0, 0, false, slots);
            case Cut.Part.Layer(int l) -> new CutPlan(s, false, l, l + 1, false, slots);
            case Cut.Part.Head _ -> new CutPlan(s, false, 0, 0, true, slots);
        };
    }

    /** Whether the KV cache is a ring of {@link #slots} rows that positions wrap around (slot = position mod slots). */
    boolean ring() {
        return slots < step.ctx();
    }

    int rows() {
        return step.rows();
    }

    int ctx() {
        return step.ctx();
    }

    boolean hasLayers() {
        return endLayer > firstLayer;
    }

    /** Whether the cut attends over a KV cache (and so needs rotary tables and cache state). */
    boolean usesCache() {
        return hasLayers() && !(step instanceof Cut.Step.Forward);
    }

    /** Rows of one layer's KV cache tensor: one sequence's slots, or rows stacked sequences. */
    int cacheRows() {
        return switch (step) {
            case Cut.Step.Batch b -> b.rows() * slots;
            case Cut.Step.Forward _, Cut.Step.Decode _, Cut.Step.Prefill _ -> slots;
        };
    }
}
