package org.stagecheck.author;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.stagecheck.backend.RunResult;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.PreparedProgram;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.tensor.Tensor;

/**
 * The tiny model's decode step, prepared once and run token after token with its KV cache carried
 * (the way {@code bench decode} and a serving loop run it), interleaved on the same interpreter
 * with its 2-chip split (multicast, all-reduce) on other tokens: every token's outputs and state
 * equal bit for bit those of a fresh interpreter that keeps every stage value (a traced run, which
 * reuses no storage). Storage kept from run to run (the prepared program's buffer arena) must
 * never leak one token's values into the next.
 */
class PreparedDecodeReuseTest {

    @Test
    void aPreparedDecodeStepRunTokenAfterTokenEqualsFreshRuns() {
        ModelSpec tiny = ModelSpec.tiny();
        AuthorOutcome.Authored one = (AuthorOutcome.Authored) Author.author(tiny, Cut.decode(8), AuthorOptions.single());
        AuthorOutcome.Authored two = (AuthorOutcome.Authored) Author.author(tiny, Cut.decode(8), AuthorOptions.split(2));
        Interpreter shared = new Interpreter(RunOptions.defaults().withThreads(2));
        PreparedProgram p1 = shared.prepare(one.program());
        PreparedProgram p2 = shared.prepare(two.program());
        Decode d1 = new Decode(one, 3);
        Decode d2 = new Decode(two, 5);
        for (int pos = 0; pos < 7; pos++) {
            d1.step(p1, pos, "tp1");
            d2.step(p2, pos, "tp2");
        }
        assertThat(d1.tokens).as("the step is not a constant: tokens differ along the way").hasSizeGreaterThan(1);
    }

    /** One decode sequence: the bound tensors with the state carried, and the tokens seen. */
    private static final class Decode {
        private final AuthorOutcome.Authored authored;
        private final Map<String, Tensor> bound;
        private final java.util.Set<Integer> tokens = new java.util.HashSet<>();
        private int token;

        Decode(AuthorOutcome.Authored authored, int firstToken) {
            this.authored = authored;
            this.bound = new LinkedHashMap<>(authored.bound());
            this.token = firstToken;
        }

        void step(PreparedProgram prepared, int pos, String what) {
            Program p = authored.program();
            for (TensorDecl t : p.tensors()) {
                if (t.name().startsWith("tokens") && t.role() == TensorRole.INPUT) {
                    bound.put(t.name(), Tensor.fromInts(t.shape(), new int[] {token}));
                }
            }
            Map<String, Long> params = Map.of("pos", (long) pos);
            RunResult got = prepared.run(bound, params);
            RunResult fresh = new Interpreter(RunOptions.defaults().withThreads(1).withTrace(true)).run(p, bound, params);
            assertThat(got.faults()).as("%s pos %d", what, pos).isEmpty();
            assertThat(fresh.faults()).as("%s pos %d", what, pos).isEmpty();
            for (TensorDecl t : p.tensors()) {
                if (t.role() == TensorRole.OUTPUT || t.role() == TensorRole.STATE) {
                    assertThat(got.tensor(t.name()).bitEquals(fresh.tensor(t.name())))
                            .as("%s pos %d: %s bit for bit", what, pos, t.name()).isTrue();
                }
            }
            for (TensorDecl t : p.tensors()) {
                if (t.role() == TensorRole.STATE) {
                    bound.put(t.name(), got.tensor(t.name()));
                }
            }
            token = got.tensor("next_token").getInt(0);
            tokens.add(token);
        }
    }
}
