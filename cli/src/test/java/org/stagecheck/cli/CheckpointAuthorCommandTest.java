package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.stagecheck.author.synth.SynthFamily;
import org.stagecheck.author.synth.SyntheticCheckpoint;
import org.stagecheck.author.synth.SyntheticModel;
import org.stagecheck.spec.ir.DType;

/**
 * The command line end to end on generated Hugging Face checkpoints of every family (f32, bf16,
 * and sharded): {@code author --model DIR} writes every one of the 14 cuts on one chip and the
 * splittable ones on two, each authored directory runs, each split's certificate is discharged
 * against the unsplit program, no checkpoint tensor is copied into the authored directory, and
 * {@code model.json} records the family and its settings.
 */
@Tag("slow")
class CheckpointAuthorCommandTest {
    /** Every cut kind with the options it takes (ctx above Mistral's window of 3: the cache is a ring). */
    static final List<List<String>> CUTS = List.of(
            List.of("decode", "--ctx", "8"),
            List.of("prefill", "--rows", "3", "--ctx", "8"),
            List.of("batch", "--rows", "2", "--ctx", "8"),
            List.of("forward"),
            List.of("forward-layer", "--layer", "1"),
            List.of("forward-head"),
            List.of("decode-embed"),
            List.of("decode-layer", "--layer", "1", "--ctx", "8"),
            List.of("decode-head"),
            List.of("batch-embed", "--rows", "2"),
            List.of("batch-layer", "--layer", "0", "--rows", "2", "--ctx", "8"),
            List.of("batch-head", "--rows", "2"),
            List.of("prefill-layer", "--layer", "1", "--rows", "3", "--ctx", "8"),
            List.of("prefill-head", "--rows", "3"));
    static final Set<String> SPLITTABLE = Set.of("decode", "batch", "decode-layer", "batch-layer");

    static SyntheticModel.Builder tiny(SynthFamily family) {
        return SyntheticModel.builder(family).vocab(40).hidden(32).layers(2).heads(4).kvHeads(2).headDim(8).ffn(48)
                .maxPositionEmbeddings(64).seed(7);
    }

    static Stream<Arguments> checkpoints() {
        return Stream.of(
                Arguments.of("llama f32 with attention and mlp biases", tiny(SynthFamily.LLAMA).attentionBias(true).mlpBias(true).build()),
                Arguments.of("llama bf16", tiny(SynthFamily.LLAMA).dtype(DType.BF16).build()),
                Arguments.of("llama sharded, biases, tied", tiny(SynthFamily.LLAMA).attentionBias(true).mlpBias(true)
                        .tieWordEmbeddings(true).maxShardBytes(4096).build()),
                Arguments.of("mistral f32 window 3", tiny(SynthFamily.MISTRAL).slidingWindow(3).build()),
                Arguments.of("mistral bf16 window 3", tiny(SynthFamily.MISTRAL).dtype(DType.BF16).slidingWindow(3).build()),
                Arguments.of("mistral sharded", tiny(SynthFamily.MISTRAL).maxShardBytes(3000).build()),
                Arguments.of("qwen2 f32", tiny(SynthFamily.QWEN2).build()),
                Arguments.of("qwen2 bf16", tiny(SynthFamily.QWEN2).dtype(DType.BF16).build()),
                Arguments.of("qwen2 bf16 sharded", tiny(SynthFamily.QWEN2).dtype(DType.BF16).maxShardBytes(2048).build()),
                Arguments.of("qwen3 f32", tiny(SynthFamily.QWEN3).build()),
                Arguments.of("qwen3 bf16", tiny(SynthFamily.QWEN3).dtype(DType.BF16).build()),
                Arguments.of("qwen3 sharded", tiny(SynthFamily.QWEN3).maxShardBytes(4096).build()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("checkpoints")
    void everyCutIsAuthoredRunsAndEverySplitVerifies(String name, SyntheticModel model, @TempDir Path tmp) throws IOException {
        Path ck = tmp.resolve("ck");
        SyntheticCheckpoint.write(ck, model);
        if (model.maxShardBytes() > 0) {
            assertThat(ck.resolve("model.safetensors.index.json")).exists();
        }
        Set<String> checkpointFiles = Set.copyOf(Files.list(ck).map(p -> p.getFileName().toString()).toList());
        SoftAssertions soft = new SoftAssertions();
        for (List<String> cut : CUTS) {
            String kind = cut.getFirst();
            Path one = tmp.resolve(kind + ".tp1");
            authorAndRun(soft, name, ck, cut, 1, one, tmp);
            assertModelJson(soft, name + " " + kind, one, model);
            if (SPLITTABLE.contains(kind)) {
                Path two = tmp.resolve(kind + ".tp2");
                authorAndRun(soft, name, ck, cut, 2, two, tmp);
                CliRunner v = CliRunner.run("verify", two.resolve("program.json").toString(), "--cert", two.resolve("certificate.json").toString(),
                        "--unsplit", one.resolve("program.json").toString());
                soft.assertThat(v.exit()).as("%s %s: verify tp 2 against tp 1\n%s%s", name, kind, v.out(), v.err()).isZero();
                soft.assertThat(v.out()).as("%s %s: verify", name, kind).contains("unreduced-shard  discharged");
            }
        }
        // the checkpoint directory is read, never written
        soft.assertThat(Set.copyOf(Files.list(ck).map(p -> p.getFileName().toString()).toList())).isEqualTo(checkpointFiles);
        soft.assertAll();
    }

    private static void authorAndRun(SoftAssertions soft, String name, Path ck, List<String> cut, int tp, Path out, Path tmp) throws IOException {
        List<String> args = new ArrayList<>(List.of("author", "--model", ck.toString(), "--cut"));
        args.addAll(cut);
        args.addAll(List.of("--tp", String.valueOf(tp), "--out", out.toString()));
        CliRunner a = CliRunner.run(args.toArray(String[]::new));
        String what = name + " " + cut.getFirst() + " tp " + tp;
        soft.assertThat(a.exit()).as("%s: author\n%s%s", what, a.out(), a.err()).isZero();
        if (a.exit() != 0) {
            return;
        }
        soft.assertThat(a.out()).as(what).contains("referenced in the checkpoint " + ck.toAbsolutePath().normalize());
        // only computed tables (rotary) and inputs are files of the authored directory; no weight of the checkpoint is copied
        try (Stream<Path> files = Files.walk(out.resolve("weights"))) {
            soft.assertThat(files.filter(Files::isRegularFile).map(p -> p.getFileName().toString()))
                    .as("%s: weight files", what).allMatch(f -> f.startsWith("rope_cos") || f.startsWith("rope_sin"));
        }
        String manifest = Files.readString(out.resolve("inputs.json"));
        soft.assertThat(manifest).as(what).contains("\"checkpoint\"").contains("\"version\" : 2");
        Path ran = tmp.resolve("run." + out.getFileName());
        CliRunner r = CliRunner.run("run", out.resolve("program.json").toString(), "--inputs", out.toString(), "--out", ran.toString());
        soft.assertThat(r.exit()).as("%s: run\n%s%s", what, r.out(), r.err()).isZero();
        soft.assertThat(r.out()).as(what).doesNotContain("nan").doesNotContain("NaN");
    }

    private static void assertModelJson(SoftAssertions soft, String what, Path out, SyntheticModel m) throws IOException {
        String json = Files.readString(out.resolve("model.json")).replaceAll("\\s+", "");
        soft.assertThat(json).as("%s: model.json", what)
                .contains("\"family\":\"" + m.family().modelType() + "\"")
                .contains("\"vocab\":" + m.vocab() + ",", "\"hidden\":" + m.hidden() + ",", "\"layers\":" + m.layers() + ",",
                        "\"heads\":" + m.heads() + ",", "\"kvHeads\":" + m.kvHeads() + ",", "\"headDim\":" + m.headDim() + ",",
                        "\"ffn\":" + m.ffn() + ",", "\"ropeTheta\":" + m.ropeTheta() + ",")
                .contains("\"qkvBias\":" + (m.family() == SynthFamily.QWEN2 || m.attentionBias()))
                .contains("\"outputBias\":" + m.attentionBias())
                .contains("\"mlpBias\":" + m.mlpBias())
                .contains("\"qkNorm\":" + (m.family() == SynthFamily.QWEN3))
                .contains("\"slidingWindow\":" + (m.slidingWindow() == null ? 0 : m.slidingWindow()))
                .contains("\"tiedEmbeddings\":" + m.tieWordEmbeddings())
                .contains("\"dtype\":\"" + m.dtype().toString().toLowerCase(java.util.Locale.ROOT) + "\"");
    }
}
