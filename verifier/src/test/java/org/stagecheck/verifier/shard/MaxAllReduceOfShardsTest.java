package org.stagecheck.verifier.shard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.verifier.VerifyReport;

/**
 * Review finding 3: a max (or min) all-reduce of shards was accepted and its outputs called full,
 * on the ground that max is idempotent. That holds for a value that is the same on every chip,
 * not for a shard: the elementwise max of W2's rows [0,3) and rows [3,6) is no value of the
 * unsplit program. Now {@code REDUCE_OF_FULL} for a shard input under any pool; a max all-reduce
 * of a replicated value stays accepted.
 */
class MaxAllReduceOfShardsTest {

    private static SplitEdits maxAllReduceOf(String prefix, ReducePool pool) {
        SplitEdits e = new SplitEdits(SplitEdits.SQUARE).buffer("m.0", 0, 3, 3).buffer("m.1", 1, 3, 3);
        return e.after("allreduce_w2", new Stage("allreduce_max", SplitEdits.core(0), List.of(prefix + "0", prefix + "1"),
                List.of("m.0", "m.1"), StageKind.AllReduce.of(pool, "w2", 2)));
    }

    @Test
    void a_max_or_min_all_reduce_of_shards_is_rejected() {
        for (ReducePool pool : List.of(ReducePool.MAX, ReducePool.MIN)) {
            VerifyReport r = maxAllReduceOf("w2.", pool).verify();
            // each chip holds another window of w2: element i of one is not element i of the other
            assertThat(r.codes()).as(pool.jsonName()).containsExactly("ALLREDUCE_VIEW_MISMATCH");
            assertThat(r.diagnostics().getFirst().message()).contains("so the all-reduce would combine unrelated elements");
        }
    }

    @Test
    void a_max_all_reduce_of_a_replicated_value_is_accepted() {
        assertThat(maxAllReduceOf("r.", ReducePool.MAX).verify().codes()).isEmpty();
    }
}
