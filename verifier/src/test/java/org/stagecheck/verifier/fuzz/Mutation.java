package org.stagecheck.verifier.fuzz;

/**
 * The edits the campaign makes to a valid split, each to one chip, the all-reduce or the
 * certificate (docs/verifier.md, "The evaluator-judged campaign"). Some keep the split right (a
 * commuted combine, a bias added on one chip only, a hierarchical all-reduce, a scratch round
 * trip to the same place, a chip tiling its matmul differently, adding zero); the others break
 * it on that chip, or (a bias added twice) make every chip compute another program.
 */
public enum Mutation {
    NONE,
    /** A load of x, W1 or W2 on one chip reads one row or column further. */
    LOAD_SHIFT,
    /** The combine folds the operands in reverse order. */
    COMMUTE_COMBINE,
    /** One chip's partial is multiplied by 2. */
    SCALE_PARTIAL,
    /** One chip's partial is multiplied by 1.0 (no change in value). */
    SCALE_BY_ONE,
    /** One chip applies tanh to its partial. */
    NONLINEAR_PARTIAL,
    /** One chip adds 0.0 to its partial. */
    ADD_ZERO,
    /** b2 is added to the partial on one chip before the all-reduce, and no longer after it. */
    BIAS_ON_ONE_CHIP,
    /**
     * b2 is added to the partial on one chip before the all-reduce, and still after it. Every chip
     * then computes {@code x W + 2 b2} consistently: a split of another logical program, which only
     * the comparison with the unsplit parent rejects.
     */
    BIAS_TWICE,
    /** The all-reduce leaves one chip's partial out. */
    DROP_INPUT,
    /** The all-reduce takes one chip's x instead of its partial. */
    REWIRE_INPUT,
    /** The certificate gives one chip another chip's rows of W2 (and it is bound to them). */
    CERT_SLICE,
    /** With 4 chips: the all-reduce within pairs, then across them. */
    HIERARCHICAL,
    /** One chip stores its partial to a scratch tensor and loads it back from the same place. */
    SCRATCH_SAME,
    /** One chip stores its partial to a scratch tensor and loads another block of it. */
    SCRATCH_OTHER,
    /** One chip computes its W2 product as two column halves joined by a concat. */
    TILE_COLUMNS
}
