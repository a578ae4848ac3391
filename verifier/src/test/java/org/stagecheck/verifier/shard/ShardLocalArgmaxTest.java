package org.stagecheck.verifier.shard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.verifier.VerifyReport;

/**
 * Review finding 4: an arg-max over a shard's sharded axis was "not followed": its result was
 * called full, so a chip's local index (0..2 within W2's rows [3,6)) could be used as the index
 * into the whole of W2 (a vocab-parallel arg-max without its combine). Now
 * {@code SHARD_LOCAL_ARGMAX}; an arg-max over the other axis is local and complete, and accepted.
 */
class ShardLocalArgmaxTest {

    private static VerifyReport argmaxOfW2Over(int axis) {
        SplitEdits e = new SplitEdits(SplitEdits.SQUARE);
        for (int c = 0; c < 2; c++) {
            e.buffer("ix." + c, DType.I32, c, axis == 0 ? 1 : 3, axis == 0 ? 3 : 1)
                    .compute("mm2." + c, "argmax." + c, c, List.of("w2." + c), "ix." + c, new ComputeOp.Reduce(ReduceFn.ARGMAX, axis));
        }
        return e.verify();
    }

    @Test
    void an_argmax_over_the_shard_axis_is_rejected() {
        VerifyReport r = argmaxOfW2Over(0);
        assertThat(r.codes()).containsExactly("SHARD_LOCAL_ARGMAX", "SHARD_LOCAL_ARGMAX");
        assertThat(r.diagnostics().get(1).message()).contains("window 3:+3 of axis 0 of w2 (whose axis is [0,6))");
    }

    @Test
    void an_argmax_over_an_unsharded_axis_is_accepted() {
        assertThat(argmaxOfW2Over(1).codes()).isEmpty();
    }
}
