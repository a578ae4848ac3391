package org.stagecheck.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.stagecheck.author.Author;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.backend.RunResult;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.tensor.Tensor;

/**
 * The {@code tiny} model in host emulation against the reference: several decode steps with the
 * KV cache carried (single chip and split over 2 chips), a prefill and a batch cut. All four
 * programs share one compile. Each step of each side carries its own state forward, so a
 * disagreement in the cache would show in the next step.
 */
@Tag("slow")
class TinyModelDifferentialTest {
    static final int CTX = 16;
    private static CudaModule module;
    private static final List<AuthorOutcome.Authored> cuts = new ArrayList<>();

    static AuthorOutcome.Authored author(Cut cut, AuthorOptions options) {
        AuthorOutcome o = Author.author(ModelSpec.tiny(), cut, options);
        if (!(o instanceof AuthorOutcome.Authored a)) {
            throw new IllegalStateException("tiny " + cut + " was refused: " + o);
        }
        return a;
    }

    @BeforeAll
    static void compileOnce() throws Exception {
        cuts.add(author(Cut.decode(CTX), AuthorOptions.single()));
        cuts.add(author(Cut.decode(CTX), AuthorOptions.split(2)));
        cuts.add(author(Cut.prefill(4, CTX), AuthorOptions.single()));
        cuts.add(author(Cut.batch(3, CTX), AuthorOptions.single()));
        module = new CudaBackend(TestBackends.emulation()).openAll(cuts.stream().map(AuthorOutcome.Authored::program).toList());
    }

    @AfterAll
    static void close() {
        if (module != null) {
            module.close();
        }
    }

    /** The next step's bindings: state tensors from the run, the next token as the input token. */
    static Map<String, Tensor> carry(Program p, Map<String, Tensor> bound, RunResult r) {
        Map<String, Tensor> next = new LinkedHashMap<>(bound);
        for (TensorDecl t : p.tensors()) {
            if (t.role() == TensorRole.STATE) {
                next.put(t.name(), r.tensor(t.name()));
            }
        }
        Tensor token = r.tensor("next_token");
        if (token != null && bound.containsKey("tokens") && bound.get("tokens").shape().equals(token.shape())) {
            next.put("tokens", token);
        }
        return next;
    }

    private static void decodeSteps(int index, int steps) throws Exception {
        AuthorOutcome.Authored a = cuts.get(index);
        Program p = a.program();
        Interpreter interp = new Interpreter(RunOptions.defaults().withThreads(1));
        Map<String, Tensor> refBound = new LinkedHashMap<>(a.bound());
        Map<String, Tensor> cudaBound = new LinkedHashMap<>(a.bound());
        try (CudaSession s = CudaSession.of(module, index)) {
            for (int pos = 0; pos < steps; pos++) {
                Map<String, Long> params = Map.of("pos", (long) pos);
                RunResult ref = interp.run(p, refBound, params);
                RunResult act = s.step(cudaBound, params);
                assertThat(ref.ok()).isTrue();
                assertThat(Agreement.compare(p, ref, act)).as("%s step %d", p.name(), pos).isEmpty();
                refBound = carry(p, refBound, ref);
                cudaBound = carry(p, cudaBound, act);
            }
        }
    }

    @Test
    void decodeOnOneChipAgreesOverSixStepsWithTheCacheCarried() throws Exception {
        decodeSteps(0, 6);
    }

    @Test
    void decodeSplitOverTwoChipsAgreesOverFourSteps() throws Exception {
        decodeSteps(1, 4);
    }

    @Test
    void prefillAndBatchAgree() throws Exception {
        for (int index : new int[] {2, 3}) {
            AuthorOutcome.Authored a = cuts.get(index);
            RunResult ref = new Interpreter(RunOptions.defaults().withThreads(1)).run(a.program(), a.bound(), a.params(), true);
            RunResult act;
            try (CudaSession s = CudaSession.of(module, index)) {
                act = s.step(a.bound(), a.params(), true);
            }
            assertThat(ref.ok()).isTrue();
            assertThat(Agreement.compare(a.program(), ref, act)).as(a.program().name()).isEmpty();
        }
    }
}
