package org.stagecheck.author.nd4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.author.nd4j.Nd4jTransformer.Conventions;
import org.stagecheck.author.nd4j.Nd4jTransformer.KvSharing;
import org.stagecheck.author.nd4j.Nd4jTransformer.RopePairing;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;

/**
 * The agreement tests can fail: the reference under a misread convention, or the program on a
 * slightly wrong weight, disagrees with the interpreter far beyond {@link Agreement}'s tolerance.
 * It also pins which conventions the authored programs follow: half-split ("rotate half") rotary
 * pairs and consecutive query heads per KV head, as docs/author.md states.
 */
class Nd4jConventionSensitivityTest {
    private static final ModelSpec TINY = ModelSpec.tiny();
    private static final int CTX = 8;
    private static final int[] TOKENS = {9, 40, 3, 27};
    private static final int STEPS = TOKENS.length;

    @BeforeAll
    static void nd4j() {
        assumeTrue(Nd4jAvailable.problem() == null, Nd4jAvailable::problem);
    }

    @Test
    void theDocumentedConventionsAgreeWithinTheTolerance() {
        assertThat(worstLogitRatio(Conventions.llama(), UnaryOperator.identity())).isLessThan(1.0);
    }

    @Test
    void interleavedRotaryPairsDisagree() {
        double ratio = worstLogitRatio(new Conventions(RopePairing.INTERLEAVED, KvSharing.CONSECUTIVE),
                UnaryOperator.identity());
        assertThat(ratio).as("the programs rotate half-split pairs; interleaved pairs must not agree").isGreaterThan(100.0);
    }

    @Test
    void roundRobinKvHeadsDisagree() {
        double ratio = worstLogitRatio(new Conventions(RopePairing.HALF_SPLIT, KvSharing.ROUND_ROBIN),
                UnaryOperator.identity());
        assertThat(ratio).as("query head h reads KV head h/(H/KH); h mod KH must not agree").isGreaterThan(100.0);
    }

    /** A 1e-4 relative change, the first reference's whole tolerance, is resolved by this one. */
    @Test
    void aProgramRunOnAFinalNormOffBy1e4IsCaught() {
        double ratio = worstLogitRatio(Conventions.llama(), bound -> {
            Map<String, Tensor> changed = new LinkedHashMap<>(bound);
            float[] w = bound.get("final_norm").toFloats();
            for (int i = 0; i < w.length; i++) {
                w[i] = (float) (w[i] * (1 + 1e-4));
            }
            changed.put("final_norm", Tensor.fromFloats(DType.F32, bound.get("final_norm").shape(), w));
            return changed;
        });
        assertThat(ratio).isGreaterThan(1.0);
    }

    /**
     * Decode steps at positions 0..STEPS-1 from zero caches, a different token each step (with
     * one token repeated, every value row of the cache is equal, attention returns it whatever
     * the scores, and no rotary convention could be told from another); the reference runs on the authored weights, the interpreter on {@code tamper(bound)}. Returns
     * the worst max |diff| / tolerance of the logits over the steps.
     */
    private static double worstLogitRatio(Conventions conventions, UnaryOperator<Map<String, Tensor>> tamper) {
        Cut cut = Cut.decode(CTX);
        AuthorOptions options = AuthorOptions.single();
        AuthorOutcome.Authored authored = AuthoredRuns.author(TINY, cut, options);
        Nd4jTransformer reference = new Nd4jTransformer(TINY, authored.weights(), conventions);
        Nd4jTransformer.KvCache cache = Nd4jTransformer.KvCache.zeros(TINY, CTX);
        Map<String, Tensor> state = new LinkedHashMap<>(authored.bound());
        double worst = 0;
        for (int pos = 0; pos < STEPS; pos++) {
            state.put("tokens", Tensor.fromInts(Shape.of(1), new int[] {TOKENS[pos]}));
            Map<String, Tensor> after = AuthoredRuns.run(TINY, cut, options, tamper.apply(state), Map.of("pos", (long) pos));
            double[] expected = reference.step(TOKENS[pos], pos, cache);
            worst = Math.max(worst, Agreement.maxAbsDiff(expected, after.get("logits"), 0) / Agreement.tolerance(expected));
            for (int l = 0; l < TINY.layers(); l++) {
                state.put("kv_k.l" + l, after.get("kv_k.l" + l));
                state.put("kv_v.l" + l, after.get("kv_v.l" + l));
            }
        }
        System.out.printf("ND4J reference %s vs the authored decode: worst |diff|/tolerance %.3g%n", conventions, worst);
        return worst;
    }
}
