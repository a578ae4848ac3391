package org.stagecheck.verifier.shard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.verifier.VerifyReport;

/**
 * Review finding 2: {@code select(cond, p, 0)} kept a partial a partial whatever the condition,
 * but it is linear in {@code p} only for a condition that is the same on every chip. With a
 * condition computed from a shard (here {@code w2.c > 0}, the chip's own rows of W2), each chip
 * keeps a different set of elements of its partial, and the all-reduce sums masks that match
 * nothing in the unsplit program. Now {@code PARTIAL_NONLINEAR}; a replicated condition is still fine.
 */
class SelectByShardConditionTest {

    private static SplitEdits maskEveryPartialBy(String conditionPrefix) {
        SplitEdits e = new SplitEdits(SplitEdits.SQUARE);
        for (int c = 0; c < 2; c++) {
            e.buffer("pt." + c, c, 3, 3)
                    .compute("mm2." + c, "mask." + c, c, List.of(conditionPrefix + c, "p." + c), "pt." + c,
                            new ComputeOp.Generic(Expr.apply(Fn.SELECT, Expr.apply(Fn.GT, Expr.in(0), Expr.f(0.0)), Expr.in(1), Expr.f(0.0))))
                    .rewire("allreduce_w2", "p." + c, "pt." + c);
        }
        return e;
    }

    @Test
    void a_partial_selected_by_a_condition_on_a_shard_is_rejected() {
        VerifyReport r = maskEveryPartialBy("w2.").verify();
        // each chip masks its partial by its own window of w2: the result lies over that window, not over the partial's elements
        assertThat(r.codes()).containsExactly("ALLREDUCE_VIEW_MISMATCH");
        assertThat(r.diagnostics().getFirst().message()).contains("so the all-reduce would combine unrelated elements");
    }

    @Test
    void a_partial_selected_by_a_replicated_condition_is_accepted() {
        // x.c is the whole input on every chip: the same mask everywhere, so masking commutes with the sum
        assertThat(maskEveryPartialBy("x.").verify().codes()).isEmpty();
    }
}
