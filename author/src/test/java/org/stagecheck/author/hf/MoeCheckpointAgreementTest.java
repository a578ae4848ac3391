package org.stagecheck.author.hf;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.stagecheck.author.Author;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ExpertSplit;
import org.stagecheck.author.Family;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.author.laws.LawResult;
import org.stagecheck.author.laws.Laws;
import org.stagecheck.author.oracle.HfForward64;
import org.stagecheck.author.synth.ConfigStyle;
import org.stagecheck.author.synth.SynthFamily;
import org.stagecheck.author.synth.SyntheticCheckpoint;
import org.stagecheck.author.synth.SyntheticModel;
import org.stagecheck.backend.Backends;
import org.stagecheck.backend.RunResult;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;

/**
 * Generated checkpoints of each mixture-of-experts family, authored from their directories,
 * agree with the independent float64 forward at every decode step (one chip, and two with the
 * experts split either way) and on a prefill chunk; their laws hold, sparse dispatch included.
 */
@Tag("slow") // writes and authors three MoE checkpoints
class MoeCheckpointAgreementTest {
    private static final int[] TOKENS = {5, 17, 3, 28, 11, 0, 30};
    private static final double EPS_F32 = 0x1p-23;

    static Stream<Arguments> checkpoints() {
        return Stream.of(
                Arguments.of("qwen3-moe f32, top 2 renormalised, layer 0 dense", base(SynthFamily.QWEN3_MOE).normTopkProb(true)
                        .mlpOnlyLayers(List.of(0)).build()),
                Arguments.of("qwen3-moe bf16 v5, top 3 not renormalised, sharded", base(SynthFamily.QWEN3_MOE).dtype(DType.BF16)
                        .expertsPerToken(3).configStyle(ConfigStyle.V5).maxShardBytes(8192).build()),
                Arguments.of("qwen2-moe f32 with a shared expert", base(SynthFamily.QWEN2_MOE).sharedExpertIntermediate(24).build()),
                Arguments.of("mixtral bf16", base(SynthFamily.MIXTRAL).dtype(DType.BF16).build()));
    }

    private static SyntheticModel.Builder base(SynthFamily family) {
        SyntheticModel.Builder b = SyntheticModel.builder(family).vocab(40).hidden(32).layers(2).heads(4).kvHeads(2).headDim(8)
                .ffn(48).ropeTheta(10000.0).rmsNormEps(1e-5).maxPositionEmbeddings(64).dtype(DType.F32).seed(13)
                .numExperts(4).expertsPerToken(2);
        return family == SynthFamily.MIXTRAL ? b : b.moeIntermediate(16);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("checkpoints")
    void decodeAndPrefillAgreeWithTheIndependentForward(String name, SyntheticModel model, @TempDir Path dir) throws Exception {
        SyntheticCheckpoint.write(dir, model);
        ModelSpec spec = ModelSpec.resolve(dir.toString());
        assertThat(spec.arch().moe().present()).isTrue();
        int ctx = 10;
        for (AuthorOptions options : List.of(AuthorOptions.single(), AuthorOptions.split(2),
                AuthorOptions.split(2).withExpertSplit(ExpertSplit.EXPERT_PARALLEL))) {
            AuthorOutcome.Authored a = authored(spec, Cut.decode(ctx), options);
            HfForward64 oracle = HfForward64.open(dir);
            Map<String, Tensor> bound = new LinkedHashMap<>(a.bound());
            for (int p = 0; p < TOKENS.length; p++) {
                Tensor token = Tensor.fromInts(Shape.of(1), new int[] {TOKENS[p]});
                bound.put("tokens", token);
                if (options.tp() > 1) {
                    bound.put("tokens.c1", token);
                }
                RunResult r = Backends.named("interp").runChecked(a.program(), bound, Map.of("pos", (long) p), false);
                assertThat(r.faults()).isEmpty();
                assertClose(name + " " + options.tp() + " " + options.expertSplit() + " step " + p, r.tensor("logits"), oracle.decode(TOKENS[p]), k(spec, ctx));
                for (var t : a.program().tensors()) {
                    if (t.name().startsWith("kv_")) {
                        bound.put(t.name(), r.tensor(t.name()));
                    }
                }
            }
        }
        AuthorOutcome.Authored prefill = authored(spec, Cut.prefill(5, ctx), AuthorOptions.single());
        Map<String, Tensor> bound = new LinkedHashMap<>(prefill.bound());
        int[] tokens = java.util.Arrays.copyOf(TOKENS, 5);
        bound.put("tokens", Tensor.fromInts(Shape.of(5), tokens));
        RunResult r = Backends.named("interp").runChecked(prefill.program(), bound, Map.of("pos", 0L), false);
        double[][] expected = HfForward64.open(dir).prefill(tokens);
        assertClose(name + " prefill", r.tensor("logits"), expected[4], k(spec, ctx));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("checkpoints")
    void everyLawHolds(String name, SyntheticModel model, @TempDir Path dir) throws Exception {
        SyntheticCheckpoint.write(dir, model);
        ModelSpec spec = ModelSpec.resolve(dir.toString());
        List<LawResult> results = new Laws(spec).standardSuite(8);
        assertThat(results).extracting(LawResult::law).contains("moe-dispatch");
        assertThat(results).allSatisfy(res -> assertThat(res.holds()).as(res.law() + ": " + res.explanation()).isTrue());
    }

    private static AuthorOutcome.Authored authored(ModelSpec spec, Cut cut, AuthorOptions options) {
        AuthorOutcome o = Author.author(spec, cut, options);
        assertThat(o).as("%s %s", cut, options).isInstanceOf(AuthorOutcome.Authored.class);
        return (AuthorOutcome.Authored) o;
    }

    private static int k(ModelSpec spec, int ctx) {
        return Math.max(Math.max(spec.hidden(), spec.ffn()), Math.max(spec.qWidth(), ctx));
    }

    private static void assertClose(String what, Tensor logits, double[] expected, int k) {
        double scale = 1.0;
        for (double e : expected) {
            scale = Math.max(scale, Math.abs(e));
        }
        double bound = 8 * Math.sqrt(k) * EPS_F32 * scale;
        double worst = 0;
        for (int i = 0; i < expected.length; i++) {
            worst = Math.max(worst, Math.abs(logits.getDouble(i) - expected[i]));
        }
        assertThat(worst).as("%s: max |logit - float64| (bound %.3g)", what, bound).isLessThanOrEqualTo(bound);
    }
}
