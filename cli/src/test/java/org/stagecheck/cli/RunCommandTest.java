package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.stagecheck.tensor.npy.Npy;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.Shape;

class RunCommandTest {
    @TempDir
    Path tmp;

    @ParameterizedTest
    @ValueSource(strings = {"elementwise-chain", "embedding-lookup", "scalar-offset-kv-ring", "tiled-matmul-multicast", "tp2-matmul-allreduce"})
    void everyExampleRunsOnRandomInputsAndWritesItsOutputs(String name) throws Exception {
        Path out = tmp.resolve(name);
        CliRunner r = CliRunner.run("run", "../examples/" + name + ".json", "--random", "7", "--param", "pos=9", "--out", out.toString());
        if (!name.startsWith("scalar")) {
            // only the scalar example declares pos: every other program must refuse it
            assertThat(r.exit()).isEqualTo(2);
            assertThat(r.err()).contains("A value was given for 'pos', which is not a parameter of the program.");
            r = CliRunner.run("run", "../examples/" + name + ".json", "--random", "7", "--out", out.toString());
        }
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("checksum").contains("ran ");
        try (Stream<Path> files = Files.list(out)) {
            assertThat(files.filter(p -> p.toString().endsWith(".npy")).count()).isPositive();
        }
    }

    @Test
    void runningTwiceAndWithOneThreadGivesIdenticalBytes() throws IOException {
        String program = "../examples/tiled-matmul-multicast.json";
        CliRunner.run("run", program, "--random", "3", "--out", tmp.resolve("a").toString());
        CliRunner.run("run", program, "--random", "3", "--out", tmp.resolve("b").toString());
        CliRunner.run("run", program, "--random", "3", "--threads", "1", "--out", tmp.resolve("c").toString());
        byte[] a = Files.readAllBytes(tmp.resolve("a/c.npy"));
        assertThat(Files.readAllBytes(tmp.resolve("b/c.npy"))).isEqualTo(a);
        assertThat(Files.readAllBytes(tmp.resolve("c/c.npy"))).isEqualTo(a);
    }

    @Test
    void anIndexOutsideItsTableIsARuntimeFaultNamingTheStage() throws IOException {
        Path in = tmp.resolve("in");
        Files.createDirectories(in);
        Npy.write(in.resolve("tokens.npy"), Tensor.fromInts(Shape.of(4), new int[] {1, 2, 64, 3}));
        Npy.write(in.resolve("embed.npy"), Tensor.zeros(org.stagecheck.spec.ir.DType.BF16, Shape.of(64, 16)));
        CliRunner r = CliRunner.run("run", "../examples/embedding-lookup.json", "--inputs", in.toString(), "--out", tmp.resolve("o").toString());
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(1);
        assertThat(r.out()).contains("stage #1 'gather'").contains("64");
    }

    @Test
    void stopAtNonFiniteNamesTheFirstStageThatMadeANaNAndWritesNoOutputs() throws IOException {
        Path program = tmp.resolve("nan.json");
        Files.writeString(program, Files.readString(Path.of("../examples/elementwise-chain.json"))
                .replace("mul(in0, sigmoid(in0))", "mul(in0, log(in0))"));
        Path out = tmp.resolve("o");
        CliRunner r = CliRunner.run("run", program.toString(), "--random", "2", "--stop-at-nonfinite", "--trace", "--out", out.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(1);
        assertThat(r.out()).contains("NON_FINITE stage #2 'silu'").contains("stopped at stage 'silu'");
        assertThat(out.resolve("y.npy")).doesNotExist();
        assertThat(out.resolve("trace/00002_silu.out0.npy")).exists();
        assertThat(out.resolve("trace/00003_add_bias_clamp.out0.npy")).doesNotExist();
    }

    @Test
    void aProgramTooLargeToHoldIsRefusedBeforeAnythingIsAllocated() throws IOException {
        // 2e9 f32 elements per tensor: well-formed (each fits one array) but 30 GiB in all.
        Path program = tmp.resolve("huge.json");
        Files.writeString(program, Files.readString(Path.of("../examples/elementwise-chain.json"))
                .replace("[4, 8]", "[2000000000, 1]").replace("[1, 8]", "[1, 1]").replace("\"subBlocks\": [2, 4]", "\"subBlocks\": [1000, 1]"));
        assertThat(CliRunner.run("validate", program.toString()).exit()).isZero();
        CliRunner r = CliRunner.run("run", program.toString(), "--random", "1", "--out", tmp.resolve("o").toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("more than this JVM can hold").doesNotContain("OutOfMemoryError");
        assertThat(tmp.resolve("o")).doesNotExist();
    }

    @Test
    void aMissingInputFileIsBadInput() throws IOException {
        Path in = tmp.resolve("in");
        Files.createDirectories(in);
        CliRunner r = CliRunner.run("run", "../examples/embedding-lookup.json", "--inputs", in.toString(), "--out", tmp.resolve("o").toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("missing input file(s) for tokens").contains("embed");
    }

    @Test
    void aTruncatedNpyIsBadInputNotAStackTrace() throws IOException {
        Path in = tmp.resolve("in");
        Files.createDirectories(in);
        Npy.write(in.resolve("tokens.npy"), Tensor.fromInts(Shape.of(4), new int[] {1, 2, 3, 4}));
        byte[] full = Files.readAllBytes(in.resolve("tokens.npy"));
        Files.write(in.resolve("tokens.npy"), java.util.Arrays.copyOf(full, full.length - 3));
        CliRunner r = CliRunner.run("run", "../examples/embedding-lookup.json", "--inputs", in.toString(), "--random", "1", "--out", tmp.resolve("o").toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("tokens.npy").doesNotContain("\tat ");
    }

    @Test
    void aManifestPathLeavingTheInputsDirectoryIsRefused() throws IOException {
        Path in = tmp.resolve("in");
        Files.createDirectories(in);
        Files.writeString(in.resolve("inputs.json"), "{\"format\": \"stagecheck-inputs\", \"version\": 1, \"tensors\": {\"tokens\": \"../../etc/passwd\"}}");
        CliRunner r = CliRunner.run("run", "../examples/embedding-lookup.json", "--inputs", in.toString(), "--out", tmp.resolve("o").toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("inputs.json:1:69: path \"../../etc/passwd\" for tensor \"tokens\" leaves the manifest's directory (at /tensors/tokens)");
    }

    @Test
    @Tag("slow") // starts python
    void numpyReadsWhatRunWrites() throws Exception {
        assumeTrue(hasNumpy(), "python3 with numpy is not installed here: the numpy cross-check is skipped");
        Path out = tmp.resolve("np");
        assertThat(CliRunner.run("run", "../examples/elementwise-chain.json", "--random", "5", "--out", out.toString()).exit()).isZero();
        Path tokens = tmp.resolve("emb");
        assertThat(CliRunner.run("run", "../examples/embedding-lookup.json", "--random", "5", "--out", tokens.toString()).exit()).isZero();
        // y is bf16: numpy has no bf16, so it is stored as uint16 bit patterns (docs/semantics.md).
        String script = "import numpy as np, sys\n"
                + "y = np.load(sys.argv[1]); h = np.load(sys.argv[2])\n"
                + "print(y.dtype, y.shape, h.dtype, h.shape)\n";
        Process p = new ProcessBuilder("python3", "-c", script, out.resolve("y.npy").toString(), tokens.resolve("h.npy").toString())
                .redirectErrorStream(true).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String printed = new String(p.getInputStream().readAllBytes()).trim();
        assertThat(p.exitValue()).as(printed).isZero();
        assertThat(printed).isEqualTo("uint16 (4, 8) float32 (4, 16)");
    }

    @Test
    @Tag("slow") // starts python
    void numpyAgreesWithTheBf16AndF16RoundingOfRandomBitPatterns() throws Exception {
        assumeTrue(hasNumpy(), "python3 with numpy is not installed here: the numpy cross-check is skipped");
        // Every f32 bit pattern is as likely: normals, subnormals, infinities, NaNs, ties.
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(11);
        float[] x = new float[262144];
        int[] special = {0x7f800000, 0xff800000, 0x7fc00000, 0x00000001, 0x80000001, 0x7f7fffff, 0x3f808000, 0x3f818000,
                0x477ff000, 0x477fe000, 0x38800000, 0x33800000, 0x33000000, 0x33000001};
        for (int i = 0; i < x.length; i++) {
            x[i] = Float.intBitsToFloat(i < special.length ? special[i] : rnd.nextInt());
        }
        Path in = tmp.resolve("in");
        Files.createDirectories(in);
        Npy.write(in.resolve("x.npy"), Tensor.fromFloats(org.stagecheck.spec.ir.DType.F32, Shape.of(x.length), x));
        Path out = tmp.resolve("out");
        CliRunner r = CliRunner.run("run", "src/test/resources/round-to-bf16-and-f16.json", "--inputs", in.toString(), "--out", out.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        // numpy's float16 cast is IEEE round-to-nearest-even; bf16 is the upper half of f32 with RNE.
        String script = """
                import numpy as np, sys, warnings
                warnings.simplefilter("ignore")
                d = sys.argv[1]; x = np.load(sys.argv[2])
                b = np.load(d + "/yb.npy"); h = np.load(d + "/yh.npy")
                nan = np.isnan(x); u = x.view(np.uint32).astype(np.uint64)
                ref = ((u + 0x7fff + ((u >> 16) & 1)) >> 16).astype(np.uint16)
                bad_b = int(((b != ref) & ~nan).sum()); nan_b = bool(np.all(np.isnan((b[nan].astype(np.uint32) << 16).view(np.float32))))
                bad_h = int(((h.view(np.uint16) != x.astype(np.float16).view(np.uint16)) & ~nan).sum()); nan_h = bool(np.all(np.isnan(h[nan])))
                print(bad_b, nan_b, bad_h, nan_h)
                """;
        Process p = new ProcessBuilder("python3", "-c", script, out.toString(), in.resolve("x.npy").toString()).redirectErrorStream(true).start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        String printed = new String(p.getInputStream().readAllBytes()).trim();
        assertThat(printed).isEqualTo("0 True 0 True");
    }

    private static boolean hasNumpy() {
        try {
            Process p = new ProcessBuilder(List.of("python3", "-c", "import numpy")).redirectErrorStream(true).start();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    /** A rerun into the same OUT does not leave the earlier run's trace beside its own outputs. */
    @Test
    void anEarlierRunsTraceDoesNotOutliveTheNextRun() throws Exception {
        Path out = tmp.resolve("out");
        String program = "../examples/tiled-matmul-multicast.json";
        assertThat(CliRunner.run("run", program, "--random", "7", "--trace", "--out", out.toString()).exit()).isZero();
        assertThat(out.resolve("trace/index.json")).exists();
        CliRunner again = CliRunner.run("run", program, "--random", "8", "--out", out.toString());
        assertThat(again.exit()).as(again.err()).isZero();
        assertThat(out.resolve("trace")).doesNotExist();
        assertThat(out.resolve("tensors.json")).exists();

        // a directory named trace that stagecheck did not write is not its to remove: the run is refused
        Path mine = Files.createDirectories(out.resolve("trace"));
        Files.writeString(mine.resolve("notes.txt"), "mine");
        CliRunner refused = CliRunner.run("run", program, "--random", "9", "--out", out.toString());
        assertThat(refused.exit()).isEqualTo(2);
        assertThat(refused.err()).contains("holds files an earlier stagecheck run did not write (trace)");
        assertThat(mine.resolve("notes.txt")).hasContent("mine");
    }

    /**
     * OUT holding an earlier run's files is replaced as a whole: the earlier program's outputs do
     * not stand beside this one's; OUT holding anything else is refused before the run, untouched.
     */
    @Test
    void anEarlierRunsOutputIsReplacedWholeAndAUsersFilesAreNeverDeleted() throws Exception {
        Path out = tmp.resolve("out");
        assertThat(CliRunner.run("run", "../examples/tiled-matmul-multicast.json", "--random", "7", "--trace", "--out", out.toString()).exit()).isZero();
        java.util.Set<String> first = names(out);
        CliRunner again = CliRunner.run("run", "../examples/elementwise-chain.json", "--random", "1", "--out", out.toString());
        assertThat(again.exit()).as(again.err()).isZero();
        assertThat(names(out)).containsExactlyInAnyOrder("tensors.json", "y.npy").doesNotContainAnyElementsOf(
                first.stream().filter(n -> !n.equals("tensors.json")).toList());
        assertThat(names(tmp)).containsExactly("out");

        Files.writeString(out.resolve("notes.txt"), "mine");
        byte[] before = Files.readAllBytes(out.resolve("y.npy"));
        CliRunner refused = CliRunner.run("run", "../examples/elementwise-chain.json", "--random", "2", "--out", out.toString());
        assertThat(refused.exit()).isEqualTo(2);
        assertThat(refused.err()).startsWith("error: --out " + out + " holds files an earlier stagecheck run did not write (notes.txt)");
        assertThat(refused.out()).doesNotContain("ran ");
        assertThat(names(out)).containsExactlyInAnyOrder("tensors.json", "y.npy", "notes.txt");
        assertThat(Files.readAllBytes(out.resolve("y.npy"))).isEqualTo(before);

        Path users = Files.createDirectories(tmp.resolve("users"));
        Files.writeString(users.resolve("tensors.json"), "{\"not\": \"an index\"}");
        assertThat(CliRunner.run("run", "../examples/elementwise-chain.json", "--random", "1", "--out", users.toString()).exit()).isEqualTo(2);
        assertThat(names(users)).containsExactly("tensors.json");
    }

    private static java.util.Set<String> names(Path dir) throws IOException {
        try (java.util.stream.Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).collect(java.util.stream.Collectors.toSet());
        }
    }
}
