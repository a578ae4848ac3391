package org.stagecheck.author.model;

import org.stagecheck.author.Cut;

/**
 * What a cut's program contains: the step {@link Mode}, its rows and cache length, whether it
 * starts at the embedding, which layers it runs, and whether it ends at the head.
 */
record CutPlan(Mode mode, int rows, int ctx, boolean embed, int firstLayer, int endLayer, boolean head) {

    static CutPlan of(Cut cut, int layers) {
        return switch (cut) {
            case Cut.Decode d -> new CutPlan(Mode.DECODE, 1, d.ctx(), true, 0, layers, true);
            case Cut.Prefill p -> new CutPlan(Mode.PREFILL, p.rows(), p.ctx(), true, 0, layers, true);
            case Cut.Batch b -> new CutPlan(Mode.BATCH, b.rows(), b.ctx(), true, 0, layers, true);
            case Cut.Forward f -> new CutPlan(Mode.FORWARD, 1, 0, true, 0, layers, true);
            case Cut.ForwardLayer f -> new CutPlan(Mode.FORWARD, 1, 0, false, f.layer(), f.layer() + 1, false);
            case Cut.ForwardHead f -> new CutPlan(Mode.FORWARD, 1, 0, false, 0, 0, true);
            case Cut.DecodeEmbed d -> new CutPlan(Mode.DECODE, 1, 0, true, 0, 0, false);
            case Cut.DecodeLayer d -> new CutPlan(Mode.DECODE, 1, d.ctx(), false, d.layer(), d.layer() + 1, false);
            case Cut.DecodeHead d -> new CutPlan(Mode.DECODE, 1, 0, false, 0, 0, true);
            case Cut.BatchEmbed b -> new CutPlan(Mode.BATCH, b.rows(), 0, true, 0, 0, false);
            case Cut.BatchLayer b -> new CutPlan(Mode.BATCH, b.rows(), b.ctx(), false, b.layer(), b.layer() + 1, false);
            case Cut.BatchHead b -> new CutPlan(Mode.BATCH, b.rows(), 0, false, 0, 0, true);
            case Cut.PrefillLayer p -> new CutPlan(Mode.PREFILL, p.rows(), p.ctx(), false, p.layer(), p.layer() + 1, false);
            case Cut.PrefillHead p -> new CutPlan(Mode.PREFILL, p.rows(), 0, false, 0, 0, true);
        };
    }

    boolean hasLayers() {
        return endLayer > firstLayer;
    }

    /** Whether the cut attends over a KV cache (and so needs rotary tables and cache state). */
    boolean usesCache() {
        return hasLayers() && mode != Mode.FORWARD;
    }

    /** Rows of one layer's KV cache tensor: one sequence's ctx, or rows stacked sequences. */
    int cacheRows() {
        return mode == Mode.BATCH ? rows * ctx : ctx;
    }
}
