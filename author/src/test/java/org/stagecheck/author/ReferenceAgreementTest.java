package org.stagecheck.author;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.backend.RunResult;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.Shape;

/**
 * The authored Decode and Prefill agree with the independent double-precision forward pass
 * within f32 rounding: |logit - reference| <= 1e-4 * max(1, max |reference|).
 */
class ReferenceAgreementTest {
    private static final ModelSpec SPEC = ModelSpec.tiny();
    private static final int[] TOKENS = {3, 17, 42, 5, 63, 0, 29};
    private final Interpreter interpreter = new Interpreter(RunOptions.defaults());

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4})
    void decodeMatchesTheReferenceAtEveryStep(int gridWidth) {
        int ctx = 8;
        AuthorOutcome.Authored a = (AuthorOutcome.Authored) Author.author(SPEC, Cut.decode(ctx),
                new AuthorOptions(1, gridWidth, 2));
        ReferenceTransformer ref = new ReferenceTransformer(SPEC);
        Map<String, Tensor> bound = new LinkedHashMap<>(a.bound());
        for (int p = 0; p < TOKENS.length; p++) {
            bound.put("tokens", Tensor.fromInts(Shape.of(1), new int[] {TOKENS[p]}));
            RunResult r = interpreter.run(a.program(), bound, Map.of("pos", (long) p));
            assertThat(r.faults()).isEmpty();
            double[] expected = ref.step(TOKENS[p]);
            assertClose(r.tensor("logits"), 0, expected);
            assertThat(r.tensor("next_token").getInt(0)).as("step %d token", p).isEqualTo(ReferenceTransformer.argmax(expected));
            for (int l = 0; l < SPEC.layers(); l++) {
                bound.put("kv_k.l" + l, r.tensor("kv_k.l" + l));
                bound.put("kv_v.l" + l, r.tensor("kv_v.l" + l));
            }
        }
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(value = org.stagecheck.spec.ir.DType.class, names = {"BF16", "F16"})
    void narrowWeightsMatchTheReferenceOverTheSameRoundedWeights(org.stagecheck.spec.ir.DType dtype) {
        int ctx = 8;
        AuthorOutcome.Authored a = (AuthorOutcome.Authored) Author.author(SPEC, Cut.decode(ctx),
                AuthorOptions.single().withWeights(dtype));
        assertThat(a.weights().get("wq.l0").dtype()).isEqualTo(dtype);
        ReferenceTransformer ref = new ReferenceTransformer(SPEC, dtype);
        ReferenceTransformer f32 = new ReferenceTransformer(SPEC);
        Map<String, Tensor> bound = new LinkedHashMap<>(a.bound());
        double roundingEffect = 0;
        for (int p = 0; p < 4; p++) {
            bound.put("tokens", Tensor.fromInts(Shape.of(1), new int[] {TOKENS[p]}));
            RunResult r = interpreter.run(a.program(), bound, Map.of("pos", (long) p));
            assertThat(r.faults()).isEmpty();
            double[] expected = ref.step(TOKENS[p]);
            double[] unrounded = f32.step(TOKENS[p]);
            assertClose(r.tensor("logits"), 0, expected);
            for (int i = 0; i < expected.length; i++) {
                roundingEffect = Math.max(roundingEffect, Math.abs(expected[i] - unrounded[i]));
            }
            for (int l = 0; l < SPEC.layers(); l++) {
                bound.put("kv_k.l" + l, r.tensor("kv_k.l" + l));
                bound.put("kv_v.l" + l, r.tensor("kv_v.l" + l));
            }
        }
        // the narrow weights really are narrower: the f32-weight reference lies outside the
        // agreement tolerance (1e-4 * max |logit|, logits of tiny are below 2 in magnitude)
        assertThat(roundingEffect).isGreaterThan(2e-4);
    }

    @Test
    void prefillLastRowMatchesTheReference() {
        int rows = 5;
        AuthorOutcome.Authored a = (AuthorOutcome.Authored) Author.author(SPEC, Cut.prefill(rows, 8), AuthorOptions.single());
        Map<String, Tensor> bound = new LinkedHashMap<>(a.bound());
        int[] tokens = java.util.Arrays.copyOf(TOKENS, rows);
        bound.put("tokens", Tensor.fromInts(Shape.of(rows), tokens));
        RunResult r = interpreter.run(a.program(), bound, Map.of("pos", 0L));
        assertThat(r.faults()).isEmpty();
        ReferenceTransformer ref = new ReferenceTransformer(SPEC);
        double[] expected = null;
        for (int t : tokens) {
            expected = ref.step(t);
        }
        assertClose(r.tensor("logits"), 0, expected);
        assertThat(r.tensor("next_token").toInts()).containsExactly(ReferenceTransformer.argmax(expected));
    }

    @Test
    void forwardMatchesTheReferenceFirstStep() {
        AuthorOutcome.Authored a = (AuthorOutcome.Authored) Author.author(SPEC, Cut.forward(), AuthorOptions.single());
        Map<String, Tensor> bound = new LinkedHashMap<>(a.bound());
        bound.put("tokens", Tensor.fromInts(Shape.of(1), new int[] {42}));
        RunResult r = interpreter.run(a.program(), bound, Map.of());
        assertThat(r.faults()).isEmpty();
        assertClose(r.tensor("logits"), 0, new ReferenceTransformer(SPEC).step(42));
    }

    @Test
    void anOddSizedModelMatchesTheReferenceToo() {
        // widths with few divisors: tiles of 3, 5, 7 columns, or none; 3 query heads on 1 KV head
        ModelSpec odd = new ModelSpec("odd", 7, 6, 1, 3, 1, 2, 10, 500.0, 1e-6, 99L);
        AuthorOutcome.Authored a = (AuthorOutcome.Authored) Author.author(odd, Cut.decode(4), new AuthorOptions(1, 3, 2));
        assertThat(new org.stagecheck.spec.validate.Validator().validate(a.program())).isEmpty();
        ReferenceTransformer ref = new ReferenceTransformer(odd);
        Map<String, Tensor> bound = new LinkedHashMap<>(a.bound());
        int[] tokens = {6, 0, 3};
        for (int p = 0; p < tokens.length; p++) {
            bound.put("tokens", Tensor.fromInts(Shape.of(1), new int[] {tokens[p]}));
            RunResult r = interpreter.run(a.program(), bound, Map.of("pos", (long) p));
            assertThat(r.faults()).isEmpty();
            assertClose(r.tensor("logits"), 0, ref.step(tokens[p]));
            bound.put("kv_k.l0", r.tensor("kv_k.l0"));
            bound.put("kv_v.l0", r.tensor("kv_v.l0"));
        }
    }

    static void assertClose(Tensor logits, int row, double[] expected) {
        double max = 1;
        for (double v : expected) {
            max = Math.max(max, Math.abs(v));
        }
        double tol = 1e-4 * max;
        for (int i = 0; i < expected.length; i++) {
            assertThat((double) logits.getFloat((long) row * expected.length + i))
                    .as("logit %d", i).isCloseTo(expected[i], org.assertj.core.data.Offset.offset(tol));
        }
    }
}
