package org.stagecheck.author;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.backend.RunResult;
import org.stagecheck.tensor.Tensor;

/**
 * A decode step of the {@code small} model runs under the interpreter; its time per token is
 * printed (issue #4 acceptance: "A decode step of small runs, with its time per token recorded").
 */
class SmallDecodeTimingTest {
    @Test
    void smallDecodesAndReportsTimePerToken() {
        ModelSpec small = ModelSpec.small();
        int ctx = 64;
        AuthorOutcome.Authored a = AuthorTest.authoredFor(small, Cut.decode(ctx), AuthorOptions.single());
        Interpreter interpreter = new Interpreter(RunOptions.defaults());
        Map<String, Tensor> bound = new LinkedHashMap<>(a.bound());
        int warm = 2;
        int measured = 4;
        long total = 0;
        for (int p = 0; p < warm + measured; p++) {
            long t0 = System.nanoTime();
            RunResult r = interpreter.run(a.program(), bound, Map.of("pos", (long) p));
            long dt = System.nanoTime() - t0;
            assertThat(r.faults()).isEmpty();
            bound.put("tokens", r.tensor("next_token"));
            for (int l = 0; l < small.layers(); l++) {
                bound.put("kv_k.l" + l, r.tensor("kv_k.l" + l));
                bound.put("kv_v.l" + l, r.tensor("kv_v.l" + l));
            }
            if (p >= warm) {
                total += dt;
            }
        }
        double msPerToken = total / 1e6 / measured;
        System.out.printf("small decode (ctx %d, %d stages, 1 chip of 2x2 cores): %.1f ms per token%n",
                ctx, a.program().stages().size(), msPerToken);
        assertThat(msPerToken).isPositive();
    }
}
