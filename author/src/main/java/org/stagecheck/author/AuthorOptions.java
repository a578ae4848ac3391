package org.stagecheck.author;

import java.util.Objects;
import org.stagecheck.spec.ir.DType;

/**
 * How to author a cut: over {@code tp} chips (1 = unsplit), each a grid of
 * {@code gridWidth x gridHeight} cores over which matmul column tiles are spread, with weights
 * stored as {@code weightDType} (f32, bf16 or f16; activations, caches and rotary tables stay
 * f32) (docs/author.md, "Lowering"). {@code denseExperts} lowers a mixture of experts densely
 * (every expert on every row, masked by the routing) instead of reading the chosen experts only:
 * the dispatch law's second side.
 */
public record AuthorOptions(int tp, int gridWidth, int gridHeight, DType weightDType, boolean denseExperts,
                            ExpertSplit expertSplit) {

    public AuthorOptions {
        Objects.requireNonNull(weightDType, "weightDType");
        Objects.requireNonNull(expertSplit, "expertSplit");
    }

    /** Sparse experts (the lowering a real engine uses), split tensor-parallel. */
    public AuthorOptions(int tp, int gridWidth, int gridHeight, DType weightDType) {
        this(tp, gridWidth, gridHeight, weightDType, false, ExpertSplit.TENSOR_PARALLEL);
    }

    /** f32 weights. */
    public AuthorOptions(int tp, int gridWidth, int gridHeight) {
        this(tp, gridWidth, gridHeight, DType.F32);
    }

    /** One chip of 2x2 cores, f32 weights. */
    public static AuthorOptions single() {
        return new AuthorOptions(1, 2, 2);
    }

    /** {@code tp} chips of 2x2 cores, f32 weights. */
    public static AuthorOptions split(int tp) {
        return new AuthorOptions(tp, 2, 2);
    }

    public AuthorOptions withTp(int newTp) {
        return new AuthorOptions(newTp, gridWidth, gridHeight, weightDType, denseExperts, expertSplit);
    }

    public AuthorOptions withWeights(DType dtype) {
        return new AuthorOptions(tp, gridWidth, gridHeight, dtype, denseExperts, expertSplit);
    }

    public AuthorOptions withDenseExperts(boolean dense) {
        return new AuthorOptions(tp, gridWidth, gridHeight, weightDType, dense, expertSplit);
    }

    public AuthorOptions withExpertSplit(ExpertSplit split) {
        return new AuthorOptions(tp, gridWidth, gridHeight, weightDType, denseExperts, split);
    }

    /** What is wrong with these options, or null. */
    String problem() {
        if (tp < 1) {
            return "tp must be at least 1, not " + tp;
        }
        if (gridWidth < 1 || gridHeight < 1) {
            return "the core grid is at least 1x1, not " + gridWidth + "x" + gridHeight;
        }
        if ((long) gridWidth * gridHeight > 4096) {
            return "a core grid of more than 4096 cores is not supported";
        }
        if (!weightDType.isFloating()) {
            return "weights are floating (f32, bf16 or f16), not " + weightDType;
        }
        return null;
    }
}
