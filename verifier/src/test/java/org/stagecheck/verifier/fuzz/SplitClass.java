package org.stagecheck.verifier.fuzz;

import java.util.SplittableRandom;
import org.stagecheck.verifier.algebra.FlashDecodingSplits;
import org.stagecheck.verifier.algebra.GatherSplits;
import org.stagecheck.verifier.algebra.MeshSplits;
import org.stagecheck.verifier.algebra.NarrowFormatSplits;
import org.stagecheck.verifier.algebra.RingSplits;
import org.stagecheck.verifier.algebra.VocabSplits;

/** The classes of split the per-class campaign generates (docs/verifier.md, "The evaluator-judged campaign"). */
public enum SplitClass {
    /** Flash-decoding: each chip attends over its KV positions; max, rescale, sum all-reduces. */
    SEQUENCE_PARALLEL_ATTENTION,
    /** An all-gather built from a sum, max or min all-reduce of padded column blocks. */
    GATHER,
    /** Logits sharded by vocabulary: an arg-max with offsets, or a softmax over the shards. */
    VOCABULARY,
    /** A row-parallel product all-reduced within groups of chips, then across them. */
    TWO_LEVEL_MESH,
    /** Partials and outputs in bf16, f16, e4m3 or e5m2, rounded before or after the reduce. */
    NARROW_FORMAT,
    /** A reduction passed around a ring of chips as chained two-chip sums. */
    RING;

    /** A random right split of this class or a random planted bug of it. */
    public ClassCase generate(SplittableRandom r) {
        return switch (this) {
            case SEQUENCE_PARALLEL_ATTENTION -> FlashDecodingSplits.random(r);
            case GATHER -> GatherSplits.random(r);
            case VOCABULARY -> VocabSplits.random(r);
            case TWO_LEVEL_MESH -> MeshSplits.random(r);
            case NARROW_FORMAT -> NarrowFormatSplits.random(r);
            case RING -> RingSplits.random(r);
        };
    }
}
