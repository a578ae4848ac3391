package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.author.synth.SynthFamily;
import org.stagecheck.author.synth.SyntheticCheckpoint;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.Npy;

/**
 * The fourth hostile-input sweep: output locations that hold what a command must not lose or mix
 * with its own files, and config.json values the model spec refuses. {@code cuda emit --out}
 * writes its directory whole and replaces only an earlier emit's, as {@code run --out} does
 * (docs/format.md, "Output paths"); a config.json size or epsilon the spec refuses is named at its
 * key's line:column; a golden case's tolerance file holding a value no tolerance has is bad input;
 * a path with a line break in a manifest keeps the diagnostic on one line.
 */
class HostileInputs4Test {
    private static final String CHAIN = "../examples/elementwise-chain.json";
    private static final String TP2 = "../examples/tp2-matmul-allreduce.json";

    @TempDir
    Path tmp;

    private static List<String> names(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** Exit 2, one line on stderr holding every mention, no stack trace. */
    private static void refused(CliRunner r, String... mentions) {
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(2);
        String err = r.err().strip();
        assertThat(err.lines().count()).as(err).isEqualTo(1);
        assertThat(err).startsWith("error: ").contains(mentions).doesNotContain("Exception").doesNotContain("\tat ");
    }

    /** A directory of the user's (here a run's output) is refused whole: nothing added, nothing lost. */
    @Test
    void cudaEmitIntoADirectoryHoldingOtherFilesIsRefusedAndLeavesItAsItWas() throws IOException {
        Path runOut = tmp.resolve("run-out");
        assertThat(CliRunner.run("run", CHAIN, "--random", "1", "--out", runOut.toString()).exit()).isZero();
        List<String> before = names(runOut);
        for (boolean json : List.of(false, true)) {
            CliRunner r = json ? CliRunner.run("cuda", "emit", CHAIN, "--out", runOut.toString(), "--json")
                    : CliRunner.run("cuda", "emit", CHAIN, "--out", runOut.toString());
            refused(r, runOut.toString(), "tensors.json", "y.npy", "choose another directory");
            assertThat(names(runOut)).isEqualTo(before);
        }
    }

    /** The program's own directory as the output: its files stay its own. */
    @Test
    void cudaEmitIntoTheProgramsOwnDirectoryIsRefused() throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("programs"));
        Path program = dir.resolve("p.json");
        Files.copy(Path.of(CHAIN), program);
        refused(CliRunner.run("cuda", "emit", program.toString(), "--out", dir.toString()), "p.json");
        assertThat(names(dir)).containsExactly("p.json");
    }

    /** An earlier emit's directory is replaced whole by the new program's source. */
    @Test
    void cudaEmitReplacesAnEarlierEmitWhole() throws IOException {
        Path out = tmp.resolve("cu");
        assertThat(CliRunner.run("cuda", "emit", TP2, "--out", out.toString()).exit()).isZero();
        assertThat(Files.readString(out.resolve("kernels.tsv"))).contains("allreduce");
        CliRunner r = CliRunner.run("cuda", "emit", CHAIN, "--out", out.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(names(out)).containsExactly("kernels.tsv", "program.cu", "sc_rt.h");
        assertThat(Files.readString(out.resolve("kernels.tsv"))).contains("silu").doesNotContain("allreduce");
        assertThat(names(tmp)).containsExactly("cu");
    }

    /**
     * A checkpoint whose config.json gives a negative norm epsilon, more layers than are authored,
     * or heads that the key/value heads do not divide: one line naming the file at the key's
     * line:column and the key, not the model spec's field.
     */
    @Test
    void aConfigValueTheModelSpecRefusesIsNamedAtItsKey() throws IOException {
        Path model = tmp.resolve("ckpt");
        SyntheticCheckpoint.write(model, CheckpointAuthorCommandTest.tiny(SynthFamily.LLAMA).build());
        Path config = model.resolve("config.json");
        String original = Files.readString(config);
        for (String[] edit : List.of(
                new String[] {"\"rms_norm_eps\" : 1.0E-5", "\"rms_norm_eps\" : -1", "\"rms_norm_eps\" must be above 0"},
                new String[] {"\"num_hidden_layers\" : 2", "\"num_hidden_layers\" : 300", "\"num_hidden_layers\" is 300"},
                new String[] {"\"num_key_value_heads\" : 2", "\"num_key_value_heads\" : 3", "not a multiple of \"num_key_value_heads\" 3"})) {
            assertThat(original).contains(edit[0]);
            String text = original.replace(edit[0], edit[1]);
            Files.writeString(config, text);
            int line = (int) text.substring(0, text.indexOf(edit[1])).lines().count();
            Path out = tmp.resolve("authored");
            refused(CliRunner.run("author", "--model", model.toString(), "--cut", "decode", "--ctx", "8", "--out", out.toString()),
                    config + ":" + line + ":", edit[2]);
            assertThat(out).doesNotExist();
        }
    }

    /**
     * A case's per-element tolerance NaN or negative failed every output as if its tolerance were
     * 0 (the report said so), and infinite passed any value: each is bad input naming the file.
     */
    @Test
    void aToleranceFileHoldingNaNANegativeOrAnInfiniteValueIsBadInput() throws IOException {
        for (float bad : new float[] {Float.NaN, -1f, Float.POSITIVE_INFINITY}) {
            Path dir = tmp.resolve("case-" + bad);
            HostileInputFixtures.copyTree(Path.of("../golden/cases/elementwise-chain"), dir);
            Path tolerance = dir.resolve("tolerance/000-y.npy");
            float[] values = new float[32];
            values[5] = bad;
            Files.delete(tolerance);
            Npy.write(tolerance, Tensor.fromFloats(DType.F32, Shape.of(4, 8), values));
            CliRunner r = CliRunner.run("golden", "check", dir.toString());
            assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(2);
            assertThat(r.out() + r.err()).contains(tolerance.toString(), "element 5 of the tolerance is " + (double) bad,
                    "finite and at least 0").doesNotContain("Exception");
        }
    }

    /**
     * An inputs manifest naming a file with a line feed in its name: the refusal is one line, the
     * line feed escaped, so that no line of it reads as stagecheck's own.
     */
    @Test
    void aLineFeedInAManifestPathStaysInsideTheOneLineDiagnostic() throws IOException {
        Path inputs = Files.createDirectories(tmp.resolve("inputs-newline"));
        Files.writeString(inputs.resolve("inputs.json"),
                "{\"format\": \"stagecheck-inputs\", \"version\": 1, \"tensors\": {\"x\": \"x\\nPASS: all good.npy\"}}");
        for (boolean json : List.of(false, true)) {
            Path out = tmp.resolve("out-newline");
            CliRunner r = json
                    ? CliRunner.run("run", CHAIN, "--inputs", inputs.toString(), "--out", out.toString(), "--json")
                    : CliRunner.run("run", CHAIN, "--inputs", inputs.toString(), "--out", out.toString());
            refused(r, "x\\u000APASS: all good.npy");
            assertThat(out).doesNotExist();
        }
    }

    /**
     * The same in the reports of golden check (a case's manifest naming a tolerance file with a
     * line feed) and validate (a program file so named): each case or file stays on its line.
     */
    @Test
    void aLineFeedInACaseOrProgramPathStaysOnItsLineInGoldenCheckAndValidate() throws IOException {
        Path dir = tmp.resolve("case-newline");
        HostileInputFixtures.copyTree(Path.of("../golden/cases/elementwise-chain"), dir);
        Path manifest = dir.resolve("manifest.json");
        String text = Files.readString(manifest);
        assertThat(text).contains("\"tolerance/000-y.npy\"");
        Files.writeString(manifest, text.replace("\"tolerance/000-y.npy\"", "\"tolerance/x\\nPASS all.npy\""));
        CliRunner g = CliRunner.run("golden", "check", dir.toString());
        assertThat(g.exit()).as(g.out() + g.err()).isEqualTo(2);
        assertThat((g.out() + g.err()).lines()).as(g.out() + g.err()).noneMatch(l -> l.startsWith("PASS"))
                .anyMatch(l -> l.contains("x\\u000APASS all.npy"));
        assertThat(g.err().strip().lines()).hasSize(1);

        CliRunner v = CliRunner.run("validate", tmp.resolve("no\nPASS.json").toString());
        assertThat(v.exit()).as(v.out() + v.err()).isEqualTo(2);
        assertThat((v.out() + v.err()).lines()).as(v.out() + v.err()).noneMatch(l -> l.startsWith("PASS"));
    }

    /**
     * An empty or blank {@code reduce --test}: {@code sh -c ""} exits 0, so every program "passes"
     * and the reply was "nothing to reduce" (exit 1) about a test that was never given; it is a
     * usage mistake, refused before any work.
     */
    @Test
    void reduceWithAnEmptyTestCommandIsRefused() {
        for (String test : List.of("", "   ")) {
            Path out = tmp.resolve("reduced");
            CliRunner r = CliRunner.run("reduce", CHAIN, "--inputs", "../golden/cases/elementwise-chain", "--test", test, "--out", out.toString());
            refused(r, "--test needs a shell command");
            assertThat(out).doesNotExist();
        }
    }

    /**
     * An ill-formed program whose tensor is also enormous: golden record said it needed 2^33 GiB
     * of heap (give more with -Xmx) where run and validate name the finding; it names the finding,
     * at its place in the file, before judging sizes or reading inputs.
     */
    @Test
    void goldenRecordNamesAnIllFormedProgramBeforeItsSize() throws IOException {
        Path program = tmp.resolve("rank3-huge.json");
        String text = Files.readString(Path.of(CHAIN));
        assertThat(text).contains("[4, 8]");
        Files.writeString(program, text.replaceFirst("\\[4, 8\\]", "[2147483647, 2147483647, 2147483647]"));
        Path out = tmp.resolve("case");
        CliRunner r = CliRunner.run("golden", "record", program.toString(), "--random", "1", "--out", out.toString());
        refused(r, "not well-formed", "SIZE_TOO_LARGE", program + ":8:");
        assertThat(r.err()).doesNotContain("GiB");
        assertThat(out).doesNotExist();
    }
}
