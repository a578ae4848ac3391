package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
 * The command line end to end on mixtures of experts: the built-in {@code tiny-moe} and
 * generated Qwen3-MoE, Qwen2-MoE and Mixtral checkpoints author every one of the 14 cuts on one
 * chip and the splittable ones on two with the experts split either way; every program runs, and
 * every split's certificate is discharged against the unsplit program.
 */
@Tag("slow")
class MoeAuthorCommandTest {
    static Stream<Arguments> models() {
        return Stream.of(
                Arguments.of("tiny-moe", null),
                Arguments.of("qwen3-moe bf16, layer 0 dense", base(SynthFamily.QWEN3_MOE).dtype(DType.BF16).normTopkProb(true)
                        .mlpOnlyLayers(List.of(0)).build()),
                Arguments.of("qwen2-moe sharded, shared expert", base(SynthFamily.QWEN2_MOE).sharedExpertIntermediate(24)
                        .maxShardBytes(8192).build()),
                Arguments.of("mixtral f32", base(SynthFamily.MIXTRAL).build()));
    }

    private static SyntheticModel.Builder base(SynthFamily family) {
        SyntheticModel.Builder b = SyntheticModel.builder(family).vocab(40).hidden(32).layers(2).heads(4).kvHeads(2).headDim(8)
                .ffn(48).maxPositionEmbeddings(64).seed(9).numExperts(4).expertsPerToken(2);
        return family == SynthFamily.MIXTRAL ? b : b.moeIntermediate(16);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void everyCutIsAuthoredRunsAndEverySplitVerifies(String name, SyntheticModel model, @TempDir Path tmp) throws IOException {
        String source = "tiny-moe";
        if (model != null) {
            Path ck = tmp.resolve("ck");
            SyntheticCheckpoint.write(ck, model);
            source = ck.toString();
        }
        SoftAssertions soft = new SoftAssertions();
        for (List<String> cut : CheckpointAuthorCommandTest.CUTS) {
            String kind = cut.getFirst();
            Path one = tmp.resolve(kind + ".tp1");
            authorAndRun(soft, name, source, cut, List.of("--tp", "1"), one, tmp);
            if (!CheckpointAuthorCommandTest.SPLITTABLE.contains(kind)) {
                continue;
            }
            for (String split : List.of("tensor", "experts")) {
                Path two = tmp.resolve(kind + ".tp2." + split);
                authorAndRun(soft, name, source, cut, List.of("--tp", "2", "--expert-split", split), two, tmp);
                CliRunner v = CliRunner.run("verify", two.resolve("program.json").toString(), "--cert",
                        two.resolve("certificate.json").toString(), "--unsplit", one.resolve("program.json").toString(), "--require-parent");
                soft.assertThat(v.exit()).as("%s %s %s: verify tp 2 against tp 1\n%s%s", name, kind, split, v.out(), v.err()).isZero();
            }
        }
        soft.assertAll();
    }

    private static void authorAndRun(SoftAssertions soft, String name, String model, List<String> cut, List<String> options, Path out,
                                     Path tmp) {
        List<String> args = new ArrayList<>(List.of("author", "--model", model, "--cut"));
        args.addAll(cut);
        args.addAll(options);
        args.addAll(List.of("--out", out.toString()));
        CliRunner a = CliRunner.run(args.toArray(String[]::new));
        String what = name + " " + String.join(" ", cut) + " " + String.join(" ", options);
        soft.assertThat(a.exit()).as("%s: author\n%s%s", what, a.out(), a.err()).isZero();
        if (a.exit() != 0) {
            return;
        }
        assertThat(Files.exists(out.resolve("model.json"))).isTrue();
        Path ran = tmp.resolve("run." + out.getFileName());
        CliRunner r = CliRunner.run("run", out.resolve("program.json").toString(), "--inputs", out.toString(), "--out", ran.toString());
        soft.assertThat(r.exit()).as("%s: run\n%s%s", what, r.out(), r.err()).isZero();
    }
}
