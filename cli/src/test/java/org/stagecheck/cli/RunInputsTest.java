package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.Npy;

/** What a run reads: checked against the program before the data, with clean failures. */
class RunInputsTest {
    @TempDir
    Path tmp;

    private static final String CHAIN = "../examples/elementwise-chain.json";

    private Path inputs(Tensor x) throws IOException {
        Path in = tmp.resolve("in");
        Files.createDirectories(in);
        Npy.write(in.resolve("x.npy"), x);
        Npy.write(in.resolve("bias.npy"), Tensor.zeros(DType.F32, Shape.of(1, 8)));
        return in;
    }

    @Test
    void aFloat64FileBoundToAnF32InputIsBadInputNamingTheFile() throws IOException {
        Path in = inputs(Tensor.wrapDoubles(DType.F32, Shape.of(4, 8), new double[32]));
        CliRunner r = CliRunner.run("run", CHAIN, "--inputs", in.toString(), "--out", tmp.resolve("o").toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains(in.resolve("x.npy") + " holds float64 values ('<f8') but tensor 'x' is f32[4, 8]; a float64 file is bound only in a --f64 run");
        assertThat(r.out() + r.err()).doesNotContain("stopped at stage 'null'");
        // the same file is the true-value input of a float64 run
        assertThat(CliRunner.run("run", CHAIN, "--inputs", in.toString(), "--f64", "--out", tmp.resolve("o").toString()).exit()).isZero();
    }

    @Test
    void aTwoGibFileWhoseHeaderDisagreesWithTheProgramIsRefusedFromItsHeader() throws IOException {
        Path in = tmp.resolve("in");
        Files.createDirectories(in);
        String dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (536870912,), }";
        String header = dict + " ".repeat(128 - 10 - dict.length() - 1) + "\n";
        try (RandomAccessFile f = new RandomAccessFile(in.resolve("x.npy").toFile(), "rw")) {
            f.write(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (byte) header.length(), 0});
            f.write(header.getBytes(StandardCharsets.US_ASCII));
            f.setLength(10 + header.length() + (1L << 31)); // sparse: 2 GiB of data never written
        }
        CliRunner r = CliRunner.run("run", CHAIN, "--inputs", in.toString(), "--random", "1", "--out", tmp.resolve("o").toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains(in.resolve("x.npy") + " holds f32[536870912] but tensor 'x' is f32[4, 8]");
    }

    @Test
    void ordinaryIoProblemsAreReportedAsSuchNeverAsABug() throws IOException {
        Path in = tmp.resolve("in");
        Files.createDirectories(in.resolve("x.npy")); // a directory where a tensor file should be
        Path file = Files.writeString(tmp.resolve("f"), "x");
        String[][] cases = {
                {"run", CHAIN, "--inputs", in.toString(), "--random", "1", "--out", tmp.resolve("o").toString()},
                {"run", tmp.toString(), "--random", "1", "--out", tmp.resolve("o").toString()},
                {"run", CHAIN, "--inputs", file.toString(), "--out", tmp.resolve("o").toString()},
                {"run", CHAIN, "--random", "1", "--state-from", tmp.resolve("none").toString(), "--out", tmp.resolve("o").toString()},
                {"run", CHAIN, "--bind", "x=" + tmp.resolve("none.npy"), "--random", "1", "--out", tmp.resolve("o").toString()},
                {"author", "--model", "tiny", "--cut", "decode-head", "--out", "/proc/stagecheck/x"},
                {"verify", CHAIN, "--cert", tmp.toString()},
                {"validate", "/dev/null"},
        };
        for (String[] c : cases) {
            CliRunner r = CliRunner.run(c);
            assertThat(r.exit()).as(String.join(" ", c) + "\n" + r.err()).isEqualTo(2);
            assertThat(r.err()).as(String.join(" ", c)).startsWith("error: ").doesNotContain("internal error").doesNotContain("Exception");
        }
    }

    @Test
    void stopAtNonFiniteBareStopsAtNaNButNotAtAnIntendedInfinity() throws IOException {
        Path program = tmp.resolve("inf.json");
        // log(0) is -inf on purpose (like a causal mask); nothing in the chain makes a NaN
        Files.writeString(program, Files.readString(Path.of(CHAIN)).replace("mul(in0, sigmoid(in0))", "log(mul(in0, 0.0))"));
        CliRunner bare = CliRunner.run("run", program.toString(), "--random", "2", "--stop-at-nonfinite", "--out", tmp.resolve("a").toString());
        assertThat(bare.exit()).as(bare.out() + bare.err()).isZero();
        CliRunner any = CliRunner.run("run", program.toString(), "--random", "2", "--stop-at-nonfinite=any", "--out", tmp.resolve("b").toString());
        assertThat(any.exit()).isEqualTo(1);
        assertThat(any.out()).contains("NON_FINITE stage #2 'silu'").contains("-Infinity");
        CliRunner inf = CliRunner.run("run", program.toString(), "--random", "2", "--stop-at-nonfinite=inf", "--out", tmp.resolve("c").toString());
        assertThat(inf.exit()).isEqualTo(1);
        Path nan = tmp.resolve("nan.json");
        Files.writeString(nan, Files.readString(Path.of(CHAIN)).replace("mul(in0, sigmoid(in0))", "mul(log(mul(in0, 0.0)), 0.0)"));
        CliRunner n = CliRunner.run("run", nan.toString(), "--random", "2", "--stop-at-nonfinite", "--out", tmp.resolve("d").toString());
        assertThat(n.exit()).isEqualTo(1);
        assertThat(n.out()).contains("wrote NaN").contains("the first NaN value of the run");
    }

    @Test
    void f64AndTraceGiveTheSameExitCodeAsThePlainRunForAProgramTooLargeToHold() throws IOException {
        Path program = tmp.resolve("big.json");
        Files.writeString(program, Files.readString(Path.of(CHAIN)).replace("[4, 8]", "[40000, 40000]").replace("[1, 8]", "[1, 40000]")
                .replace("\"subBlocks\": [2, 4]", "\"subBlocks\": [20000, 20000]"));
        for (String mode : new String[] {"--threads=1", "--f64", "--trace"}) {
            CliRunner r = CliRunner.run("run", program.toString(), "--random", "1", mode, "--out", tmp.resolve("o").toString());
            assertThat(r.exit()).as(mode + ": " + r.err()).isEqualTo(2);
            assertThat(r.err()).as(mode).contains("more than this JVM can hold");
        }
        assertThat(tmp.resolve("o")).doesNotExist();
    }

    @Test
    void theMemoryEstimateCountsF64AndTheTrace() throws Exception {
        var program = Load.program(Path.of(CHAIN)).program();
        long plain = MemoryEstimate.of(program, false, false).bytes();
        // tensors x 4x8 f32, bias 1x8 f32, y 4x8 bf16; buffers 4x8 f32 x2, 1x8 f32, 4x8 bf16
        assertThat(plain).isEqualTo(128 + 32 + 64 + 128 + 32 + 128 + 64);
        long f64 = MemoryEstimate.of(program, true, false).bytes();
        assertThat(f64).isEqualTo(256 + 64 + 256 + 256 + 64 + 256 + 256 + (128 + 32));
        long trace = MemoryEstimate.of(program, false, true).bytes();
        assertThat(trace).isEqualTo(plain + 128 + 32 + 128 + 64); // the four stages with outputs
    }

    @Test
    void stateFromAPreviousRunsOutputCarriesTheStateToTheNextStep() throws IOException {
        Path dir = tmp.resolve("model");
        assertThat(CliRunner.run("author", "--model", "tiny", "--cut", "decode", "--ctx", "8", "--out", dir.toString()).exit()).isZero();
        String program = dir.resolve("program.json").toString();
        Path step0 = tmp.resolve("step0");
        CliRunner r0 = CliRunner.run("run", program, "--inputs", dir.toString(), "--out", step0.toString());
        assertThat(r0.exit()).as(r0.err()).isZero();
        assertThat(step0.resolve("tensors.json")).isRegularFile();
        Path step1 = tmp.resolve("step1");
        CliRunner r1 = CliRunner.run("run", program, "--inputs", dir.toString(), "--state-from", step0.toString(),
                "--bind", "tokens=" + step0.resolve("next_token.npy"), "--param", "pos=1", "--out", step1.toString());
        assertThat(r1.exit()).as(r1.err()).isZero();
        // the cache row 0 written by step 0 is carried: step 1 without it differs
        Path fresh = tmp.resolve("fresh");
        CliRunner f = CliRunner.run("run", program, "--inputs", dir.toString(),
                "--bind", "tokens=" + step0.resolve("next_token.npy"), "--param", "pos=1", "--out", fresh.toString());
        assertThat(f.exit()).isZero();
        assertThat(Files.readAllBytes(step1.resolve("logits.npy"))).isNotEqualTo(Files.readAllBytes(fresh.resolve("logits.npy")));
        // a state directory that lacks a state tensor is bad input
        Path empty = Files.createDirectories(tmp.resolve("empty"));
        CliRunner bad = CliRunner.run("run", program, "--inputs", dir.toString(), "--state-from", empty.toString(), "--out", tmp.resolve("x").toString());
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err()).contains("--state-from " + empty + ": no file");
    }
}
