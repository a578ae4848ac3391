package org.stagecheck.author.model;

import org.stagecheck.author.Cut;

/**
 * What a cut's program contains: its step (which fixes rows, positions and the cache), whether it
 * starts at the embedding, which layers it runs, and whether it ends at the head.
 */
record CutPlan(Cut.Step step, boolean embed, int firstLayer, int endLayer, boolean head) {

    static CutPlan of(Cut cut, int layers) {
        Cut.Step s = cut.step();
        return switch (cut.part()) {
            case Cut.Part.Whole _ -> new CutPlan(s, true, 0, layers, true);
            case Cut.Part.Embed _ -> new CutPlan(s, true, 0, 0, false);
            case Cut.Part.Layer(int l) -> new CutPlan(s, false, l, l + 1, false);
            case Cut.Part.Head _ -> new CutPlan(s, false, 0, 0, true);
        };
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

    /** Rows of one layer's KV cache tensor: one sequence's ctx, or rows stacked sequences. */
    int cacheRows() {
        return switch (step) {
            case Cut.Step.Batch b -> b.rows() * b.ctx();
            case Cut.Step.Forward _, Cut.Step.Decode _, Cut.Step.Prefill _ -> step.ctx();
        };
    }
}
