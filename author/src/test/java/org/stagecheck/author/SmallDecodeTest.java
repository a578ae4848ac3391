package org.stagecheck.author;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.backend.RunResult;
import org.stagecheck.tensor.Tensor;

/**
 * Decode steps of the {@code small} model run under the interpreter with the KV cache carried
 * from step to step: every step completes, its next token is in the vocabulary, and a step run
 * again on the same inputs gives the same bytes. Its time per token is a benchmark, not a test:
 * {@code stagecheck bench decode --model small} (docs/bench.md).
 */
@Tag("slow")
class SmallDecodeTest {
    @Test
    void smallDecodesStepAfterStepCarryingItsCache() {
        ModelSpec small = ModelSpec.small();
        int ctx = 64;
        AuthorOutcome.Authored a = AuthorTest.authoredFor(small, Cut.decode(ctx), AuthorOptions.single());
        Interpreter interpreter = new Interpreter(RunOptions.defaults());
        Map<String, Tensor> bound = new LinkedHashMap<>(a.bound());
        for (int p = 0; p < 4; p++) {
            int step = p;
            Map<String, Long> params = Map.of("pos", (long) step);
            RunResult r = interpreter.run(a.program(), bound, params);
            assertThat(r.faults()).as("step %d", step).isEmpty();
            int[] next = r.tensor("next_token").toInts();
            assertThat(next).as("step %d", step).hasSize(1);
            assertThat(next[0]).as("step %d", step).isBetween(0, small.vocab() - 1);
            RunResult again = interpreter.run(a.program(), bound, params);
            r.tensors().forEach((name, t) -> assertThat(t.bitEquals(again.tensor(name))).as("step %d, %s", step, name).isTrue());
            bound.put("tokens", r.tensor("next_token"));
            for (int l = 0; l < small.layers(); l++) {
                bound.put("kv_k.l" + l, r.tensor("kv_k.l" + l));
                bound.put("kv_v.l" + l, r.tensor("kv_v.l" + l));
            }
        }
    }
}
