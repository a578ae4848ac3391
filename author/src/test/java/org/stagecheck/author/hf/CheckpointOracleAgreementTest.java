package org.stagecheck.author.hf;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.LinkedHashMap;
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
import org.stagecheck.author.ModelSpec;
import org.stagecheck.author.oracle.HfForward64;
import org.stagecheck.author.synth.ConfigStyle;
import org.stagecheck.author.synth.Llama3RopeScaling;
import org.stagecheck.author.synth.SynthFamily;
import org.stagecheck.author.synth.SyntheticCheckpoint;
import org.stagecheck.author.synth.SyntheticModel;
import org.stagecheck.backend.Backends;
import org.stagecheck.backend.RunResult;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;

/**
 * A generated checkpoint of each family, authored from its directory, agrees with the
 * independent float64 forward (written from the families' definitions, reading the checkpoint
 * by itself) at every step: a decode run carrying the KV cache (one chip and split over two),
 * and a prefill chunk. The bound is {@code 8 sqrt(K) eps_f32} relative to
 * {@code max(1, max |logits|)}, K the longest contraction of the model.
 */
@Tag("slow")
class CheckpointOracleAgreementTest {
    private static final int[] TOKENS = {5, 17, 3, 28, 11, 0, 30, 9, 21};
    private static final double EPS_F32 = 0x1p-23;

    static Stream<Arguments> checkpoints() {
        SyntheticModel.Builder llama = base(SynthFamily.LLAMA);
        return Stream.of(
                Arguments.of("llama f32 hub", llama.build()),
                Arguments.of("llama bf16 v5, biases, llama3 rope, tied, sharded", llama.dtype(DType.BF16).configStyle(ConfigStyle.V5)
                        .attentionBias(true).mlpBias(true).ropeScaling(new Llama3RopeScaling(8.0, 1.0, 4.0, 8)).tieWordEmbeddings(true)
                        .maxShardBytes(4096).build()),
                Arguments.of("mistral f16, window 3 (a ring the run wraps around)", base(SynthFamily.MISTRAL).dtype(DType.F16).slidingWindow(3).build()),
                Arguments.of("mistral bf16, window 4, sharded", base(SynthFamily.MISTRAL).dtype(DType.BF16).slidingWindow(4).maxShardBytes(3000).build()),
                Arguments.of("qwen2 bf16 tied", base(SynthFamily.QWEN2).dtype(DType.BF16).tieWordEmbeddings(true).build()),
                Arguments.of("qwen2 f32 sharded v5", base(SynthFamily.QWEN2).configStyle(ConfigStyle.V5).maxShardBytes(2048).build()),
                Arguments.of("qwen3 f32, head_dim 12 (hidden/heads is 8)", base(SynthFamily.QWEN3).headDim(12).build()),
                Arguments.of("qwen3 bf16 with attention bias", base(SynthFamily.QWEN3).dtype(DType.BF16).attentionBias(true).build()));
    }

    private static SyntheticModel.Builder base(SynthFamily family) {
        return SyntheticModel.builder(family).vocab(40).hidden(32).layers(2).heads(4).kvHeads(2).headDim(8).ffn(48)
                .ropeTheta(10000.0).rmsNormEps(1e-5).maxPositionEmbeddings(64).dtype(DType.F32).seed(7);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("checkpoints")
    void decodeAgreesWithTheIndependentForwardAtEveryStep(String name, SyntheticModel model, @TempDir Path dir) throws Exception {
        SyntheticCheckpoint.write(dir, model);
        ModelSpec spec = ModelSpec.resolve(dir.toString());
        int ctx = 12;
        for (int tp : new int[] {1, 2}) {
            AuthorOutcome.Authored a = authored(spec, Cut.decode(ctx), tp);
            HfForward64 oracle = HfForward64.open(dir);
            Map<String, Tensor> bound = new LinkedHashMap<>(a.bound());
            for (int p = 0; p < TOKENS.length; p++) {
                bound.put("tokens", Tensor.fromInts(Shape.of(1), new int[] {TOKENS[p]}));
                if (tp > 1) {
                    bound.put("tokens.c1", bound.get("tokens"));
                }
                RunResult r = Backends.named("interp").runChecked(a.program(), bound, Map.of("pos", (long) p), false);
                assertThat(r.faults()).as("%s tp %d step %d", name, tp, p).isEmpty();
                assertClose(name + " tp " + tp + " step " + p, r.tensor("logits"), 0, oracle.decode(TOKENS[p]), k(spec, ctx));
                for (var t : a.program().tensors()) {
                    if (t.name().startsWith("kv_")) {
                        bound.put(t.name(), r.tensor(t.name()));
                    }
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("checkpoints")
    void prefillAgreesWithTheIndependentForward(String name, SyntheticModel model, @TempDir Path dir) throws Exception {
        SyntheticCheckpoint.write(dir, model);
        ModelSpec spec = ModelSpec.resolve(dir.toString());
        int ctx = 12;
        int rows = 6;
        AuthorOutcome.Authored a = authored(spec, Cut.prefill(rows, ctx), 1);
        HfForward64 oracle = HfForward64.open(dir);
        int[] tokens = java.util.Arrays.copyOf(TOKENS, rows);
        Map<String, Tensor> bound = new LinkedHashMap<>(a.bound());
        bound.put("tokens", Tensor.fromInts(Shape.of(rows), tokens));
        RunResult r = Backends.named("interp").runChecked(a.program(), bound, Map.of("pos", 0L), false);
        assertThat(r.faults()).isEmpty();
        double[][] expected = oracle.prefill(tokens);
        assertClose(name + " prefill last row", r.tensor("logits"), 0, expected[rows - 1], k(spec, ctx));
    }

    private static AuthorOutcome.Authored authored(ModelSpec spec, Cut cut, int tp) {
        AuthorOutcome o = Author.author(spec, cut, AuthorOptions.single().withTp(tp));
        assertThat(o).as("authored %s tp %d", cut, tp).isInstanceOf(AuthorOutcome.Authored.class);
        return (AuthorOutcome.Authored) o;
    }

    /** The longest contraction: hidden, ffn, the attention width, or the keys attended. */
    private static int k(ModelSpec spec, int ctx) {
        return Math.max(Math.max(spec.hidden(), spec.ffn()), Math.max(spec.qWidth(), ctx));
    }

    private static void assertClose(String what, Tensor logits, int row, double[] expected, int k) {
        double scale = 1.0;
        for (double e : expected) {
            scale = Math.max(scale, Math.abs(e));
        }
        double bound = 8 * Math.sqrt(k) * EPS_F32 * scale;
        double worst = 0;
        for (int i = 0; i < expected.length; i++) {
            worst = Math.max(worst, Math.abs(logits.getDouble(row * expected.length + i) - expected[i]));
        }
        assertThat(worst).as("%s: max |logit - float64| (bound %.3g)", what, bound).isLessThanOrEqualTo(bound);
    }
}
