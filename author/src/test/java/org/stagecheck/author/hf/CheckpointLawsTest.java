package org.stagecheck.author.hf;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.author.laws.LawResult;
import org.stagecheck.author.laws.Laws;
import org.stagecheck.author.synth.SynthFamily;
import org.stagecheck.author.synth.SyntheticCheckpoint;
import org.stagecheck.author.synth.SyntheticModel;
import org.stagecheck.spec.ir.DType;

/**
 * Every law of the cuts holds on checkpoint models as on generated ones: composition,
 * prefill/decode consistency and batch invariance bit for bit, split equivalence over two chips;
 * with each family's features, bf16 weights read as stored, and a Mistral window smaller than the
 * cache (its ring wrapped by the decode, the prefill and the batch histories).
 */
@Tag("slow")
class CheckpointLawsTest {
    static Stream<Arguments> checkpoints() {
        return Stream.of(
                Arguments.of("llama bf16 with biases", base(SynthFamily.LLAMA).dtype(DType.BF16).attentionBias(true).mlpBias(true).build()),
                Arguments.of("mistral window 3", base(SynthFamily.MISTRAL).slidingWindow(3).build()),
                Arguments.of("qwen2 bf16 sharded", base(SynthFamily.QWEN2).dtype(DType.BF16).maxShardBytes(4096).build()),
                Arguments.of("qwen3 f16", base(SynthFamily.QWEN3).dtype(DType.F16).headDim(12).build()));
    }

    private static SyntheticModel.Builder base(SynthFamily family) {
        return SyntheticModel.builder(family).vocab(40).hidden(32).layers(2).heads(4).kvHeads(2).headDim(8).ffn(48)
                .ropeTheta(10000.0).rmsNormEps(1e-5).maxPositionEmbeddings(64).dtype(DType.F32).seed(11);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("checkpoints")
    void everyLawHolds(String name, SyntheticModel model, @TempDir Path dir) throws Exception {
        SyntheticCheckpoint.write(dir, model);
        ModelSpec spec = ModelSpec.resolve(dir.toString());
        List<LawResult> results = new Laws(spec).standardSuite(8);
        assertThat(results).extracting(LawResult::law).contains("split-equivalence", "prefill-decode-consistency", "batch-invariance");
        assertThat(results).allSatisfy(r -> assertThat(r.holds()).as(r.law() + ": " + r.explanation()).isTrue());
    }
}
