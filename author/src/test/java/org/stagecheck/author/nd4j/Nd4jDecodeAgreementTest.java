package org.stagecheck.author.nd4j;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;

/**
 * Decode steps of the authored program on the interpreter against the ND4J float64 reference
 * (docs/author.md, "Second reference (ND4J)"): several steps with the KV cache carried on each
 * side, caches starting as noise so that a key above {@code pos} leaking through the mask would
 * show, logits / token / every cache row compared after every step.
 */
@Tag("slow")
class Nd4jDecodeAgreementTest {

    @BeforeAll
    static void nd4j() {
        assumeTrue(Nd4jAvailable.problem() == null, Nd4jAvailable::problem);
    }

    static Stream<Arguments> layouts() {
        return Stream.of(
                Arguments.of("1 chip, 1x1 grid", new AuthorOptions(1, 1, 1)),
                Arguments.of("1 chip, 2x2 grid", AuthorOptions.single()),
                Arguments.of("1 chip, 4x2 grid", new AuthorOptions(1, 4, 2)),
                Arguments.of("2 chips", AuthorOptions.split(2)),
                Arguments.of("4 chips", AuthorOptions.split(4)),
                Arguments.of("bf16 weights", AuthorOptions.single().withWeights(DType.BF16)),
                Arguments.of("f16 weights, 2 chips", AuthorOptions.split(2).withWeights(DType.F16)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("layouts")
    void tinyDecodeOverSevenStepsAgrees(String label, AuthorOptions options) {
        decodeAgrees(ModelSpec.tiny(), 8, 7, options);
    }

    @Test
    void smallDecodeOverThreeStepsAgrees() {
        decodeAgrees(ModelSpec.small(), 8, 3, AuthorOptions.single());
    }

    @Test
    void tinyForwardAgreesWithAStepAtPositionZero() {
        ModelSpec spec = ModelSpec.tiny();
        AuthorOptions options = new AuthorOptions(1, 4, 2);
        AuthorOutcome.Authored authored = AuthoredRuns.author(spec, Cut.forward(), options);
        Nd4jTransformer reference = new Nd4jTransformer(spec, authored.weights(), Nd4jTransformer.Conventions.llama());
        for (int token : new int[] {0, 31, 63}) {
            Map<String, Tensor> bound = new LinkedHashMap<>(authored.bound());
            bound.put("tokens", Tensor.fromInts(Shape.of(1), new int[] {token}));
            Map<String, Tensor> after = AuthoredRuns.run(spec, Cut.forward(), options, bound, Map.of());
            double[] expected = reference.step(token, 0, Nd4jTransformer.KvCache.zeros(spec, 1));
            Agreement.assertClose("tiny forward token " + token, expected, after.get("logits"), 0);
            Agreement.assertToken("tiny forward token " + token, expected, after.get("next_token").getInt(0));
        }
    }

    /** Returns the worst max |diff| / tolerance seen (printed for docs/author.md). */
    static double decodeAgrees(ModelSpec spec, int ctx, int steps, AuthorOptions options) {
        Cut cut = Cut.decode(ctx);
        AuthorOutcome.Authored unsplit = AuthoredRuns.author(spec, cut, options.withTp(1));
        Map<String, Tensor> logical = new LinkedHashMap<>(unsplit.bound());
        AuthoredRuns.fillCachesWithNoise(spec, logical, ctx, 11);
        Nd4jTransformer reference = new Nd4jTransformer(spec, unsplit.weights(), Nd4jTransformer.Conventions.llama());
        Nd4jTransformer.KvCache cache = Nd4jTransformer.KvCache.fromState(spec, logical, 0, ctx);
        double worst = 0;
        for (int pos = 0; pos < steps; pos++) {
            String what = spec.name() + " decode " + options + " step pos=" + pos;
            // distinct tokens, not the fed-back arg-max: a greedy tiny model soon repeats one token,
            // and with equal value rows attention no longer depends on rotary or scores
            int token = (int) ((5L + 23L * pos) % spec.vocab());
            logical.put("tokens", Tensor.fromInts(Shape.of(1), new int[] {token}));
            Map<String, Tensor> after = AuthoredRuns.run(spec, cut, options, logical, Map.of("pos", (long) pos));
            double[] expected = reference.step(token, pos, cache);
            worst = Math.max(worst, Agreement.assertClose(what + " logits", expected, after.get("logits"), 0));
            int next = after.get("next_token").getInt(0);
            Agreement.assertToken(what, expected, next);
            worst = Math.max(worst, CacheCheck.assertCaches(what, spec, logical, after, cache, 0, ctx, pos, pos + 1));
            for (int l = 0; l < spec.layers(); l++) {
                logical.put("kv_k.l" + l, after.get("kv_k.l" + l));
                logical.put("kv_v.l" + l, after.get("kv_v.l" + l));
            }
        }
        System.out.printf("ND4J reference, %s decode %s, %d steps: worst |diff|/tolerance %.3g%n",
                spec.name(), options, steps, worst);
        return worst;
    }
}
