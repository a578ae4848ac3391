package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.cuda.compile.Toolchain;

/**
 * {@code --kernels exact|fast} of {@code cuda emit} and {@code cuda run} (docs/cuda.md, "Fast
 * kernels"): fast kernels split the tiny decode step's few-row matmuls and long reductions into a
 * partial and a combine kernel each, exact ones never do, and a fast run's files pass
 * {@code golden check} under {@code derived}; any other word is bad input.
 */
class CudaKernelsOptionTest {
    private static final String TINY_DECODE = "../golden/cases/tiny-decode/program.json";

    @TempDir
    Path tmp;

    private long splitKernels(Path out) throws Exception {
        return Files.readString(out.resolve("kernels.tsv")).lines().filter(l -> l.contains("_partials\t")).count();
    }

    @Test
    void cudaEmitWithFastKernelsWritesAPartialAndACombineKernelPerSplitStage() throws Exception {
        Path exact = tmp.resolve("exact");
        Path fast = tmp.resolve("fast");
        CliRunner a = CliRunner.run("cuda", "emit", TINY_DECODE, "--out", exact.toString());
        CliRunner b = CliRunner.run("cuda", "emit", TINY_DECODE, "--out", fast.toString(), "--kernels", "FAST");
        assertThat(a.exit()).as(a.err()).isZero();
        assertThat(b.exit()).as(b.err()).isZero();
        assertThat(splitKernels(exact)).isZero();
        assertThat(splitKernels(fast)).isEqualTo(66);
        assertThat(Files.readString(fast.resolve("kernels.tsv"))).contains("_combine\t");
        assertThat(Files.readString(fast.resolve("program.cu"))).contains("// fast kernels:");
    }

    @Test
    void anUnknownKernelModeIsBadInputInOneLineAndWritesNothing() {
        Path out = tmp.resolve("never");
        CliRunner r = CliRunner.run("cuda", "emit", TINY_DECODE, "--out", out.toString(), "--kernels", "quick");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err().strip()).doesNotContain("\n").contains("--kernels is exact or fast, not 'quick'");
        assertThat(out).doesNotExist();
        CliRunner run = CliRunner.run("cuda", "run", "../examples/elementwise-chain.json", "--random", "7", "--emulate",
                "--out", out.toString(), "--kernels", "quick");
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).contains("--kernels is exact or fast, not 'quick'");
        assertThat(out).doesNotExist();
    }

    @Test
    void aFastRunOfTheTinyDecodeStepPassesGoldenCheckUnderDerived() throws Exception {
        assumeTrue(Toolchain.fromEnvironment().cxx() != null, "no g++: host emulation cannot be built here");
        String golden = "../golden/cases/tiny-decode";
        Path out = tmp.resolve("emu");
        CliRunner r = CliRunner.run("cuda", "run", TINY_DECODE, "--inputs", golden, "--emulate", "--kernels", "fast",
                "--out", out.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("cuda-emu, precise math, fast kernels");
        CliRunner check = CliRunner.run("golden", "check", golden, "--actual", out.toString(), "--policy", "derived");
        assertThat(check.exit()).as(check.out() + check.err()).isZero();
        assertThat(check.out()).contains("PASS");
    }
}
