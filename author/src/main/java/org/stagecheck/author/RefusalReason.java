package org.stagecheck.author;

/** Why a cut was not authored (brief, "Cuts of a model": "a clear refusal"). */
public enum RefusalReason {
    /** Only a decode step, a batch, or one layer of either is split over chips. */
    CUT_NOT_SPLITTABLE,
    /** heads, kvHeads or ffn is not divisible by tp. */
    WIDTH_NOT_DIVISIBLE,
    /** A layer index outside {@code [0, layers)}. */
    LAYER_OUT_OF_RANGE,
    /** A missing, extra or out-of-range option (ctx, rows, tp, grid). */
    BAD_OPTION,
    /** An unknown cut name. */
    UNKNOWN_CUT
}
