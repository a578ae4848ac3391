package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.cuda.compile.FakeDriverLibrary;
import org.stagecheck.cuda.compile.Toolchain;
import org.stagecheck.cuda.runtime.CudaDriver;
import org.stagecheck.cuda.runtime.LaunchException;

/**
 * {@code stagecheck cuda run} writes the same files as {@code run} (host emulation, bit for bit on
 * a program without transcendental functions), refuses to run on the GPU where there is none, and
 * {@code cuda emit} writes readable source with a kernel per stage named by its id. With
 * {@code --fake-driver} the driver path runs on the fake driver and writes the same files; a
 * driver error while setting up is one line, exit 2.
 */
class CudaCommandTest {
    @TempDir
    Path tmp;

    private static boolean driverPresent() {
        try {
            CudaDriver.system();
            return true;
        } catch (LaunchException e) {
            return false;
        }
    }

    @Test
    void cudaRunInEmulationWritesWhatRunWrites() throws Exception {
        assumeTrue(Toolchain.fromEnvironment().cxx() != null, "no g++: host emulation cannot be built here");
        String program = "../examples/tiled-matmul-multicast.json";
        Path ref = tmp.resolve("ref");
        Path emu = tmp.resolve("emu");
        CliRunner a = CliRunner.run("run", program, "--random", "7", "--out", ref.toString());
        CliRunner b = CliRunner.run("cuda", "run", program, "--random", "7", "--out", emu.toString(), "--emulate", "--graphs");
        assertThat(a.exit()).as(a.err()).isZero();
        assertThat(b.exit()).as(b.out() + b.err()).isZero();
        assertThat(b.out()).contains("cuda-emu, precise math, graphs");
        assertThat(b.err()).contains("graphs: eager launches 0, graph captures 1, replays 1");
        try (Stream<Path> files = Files.list(ref)) {
            for (Path f : files.toList()) {
                assertThat(Files.readAllBytes(emu.resolve(f.getFileName()))).as(f.getFileName().toString()).isEqualTo(Files.readAllBytes(f));
            }
        }
    }

    @Test
    void cudaRunWithoutAGpuIsBadInputInOneLine() {
        assumeTrue(!driverPresent(), "a CUDA driver is present");
        CliRunner r = CliRunner.run("cuda", "run", "../examples/elementwise-chain.json", "--random", "7", "--out", tmp.resolve("x").toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err().strip()).doesNotContain("\n").startsWith("error: no CUDA driver").contains("--emulate");
    }

    @Test
    @Tag("slow") // emits and compiles a decode step
    void cudaEmitWritesAKernelPerStageNamedByItsId() throws Exception {
        Path out = tmp.resolve("cu");
        CliRunner r = CliRunner.run("cuda", "emit", "../examples/tp2-matmul-allreduce.json", "--out", out.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        String cu = Files.readString(out.resolve("program.cu"));
        String index = Files.readString(out.resolve("kernels.tsv"));
        assertThat(Files.readString(out.resolve("sc_rt.h"))).contains("sc_fma");
        for (String line : index.lines().skip(1).toList()) {
            String[] f = line.split("\t");
            assertThat(cu).contains("// ---- stage " + f[0] + " '" + f[1] + "'").contains("SC_KERNEL " + f[2] + "(");
        }
        assertThat(index.lines().count()).isGreaterThan(1);
    }

    @Test
    void cudaEmitOfAnInvalidProgramFails() throws Exception {
        Path bad = tmp.resolve("bad.json");
        Files.writeString(bad, Files.readString(Path.of("../examples/elementwise-chain.json")).replaceFirst("\"x_buf\"", "\"x_bof\""));
        CliRunner r = CliRunner.run("cuda", "emit", bad.toString(), "--out", tmp.resolve("o").toString());
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).contains("not well-formed");
    }

    @Test
    void goldenCheckRunsTheEmulatedBackendAgainstTheCheckedInCases() {
        assumeTrue(Toolchain.fromEnvironment().cxx() != null, "no g++: host emulation cannot be built here");
        CliRunner r = CliRunner.run("golden", "check", "../golden/cases/tiled-matmul-multicast", "../golden/cases/fp8-scaled-matmul",
                "--backend", "cuda-emu");
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
    }

    private static void assumeFakeDriver() {
        assumeTrue(Toolchain.fromEnvironment().cxx() != null && FakeDriverLibrary.compiler() != null,
                "no g++ or no C compiler: the fake driver and its module cannot be built here");
    }

    /** Makes every later call of {@code symbol} in the fake driver return {@code rc} (0 clears). */
    private static void fakeDriverFails(String symbol, int rc) throws Throwable {
        SymbolLookup lib = SymbolLookup.libraryLookup(Path.of(CudaDriver.fake().library()), Arena.global());
        var fail = Linker.nativeLinker().downcallHandle(lib.find("fake_cuda_fail").orElseThrow(),
                FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
        try (Arena a = Arena.ofConfined()) {
            fail.invokeExact(a.allocateFrom(symbol), rc);
        }
    }

    @Test
    void cudaRunOnTheFakeDriverWritesWhatRunWrites() throws Exception {
        assumeFakeDriver();
        String program = "../examples/tiled-matmul-multicast.json";
        Path ref = tmp.resolve("ref");
        Path fake = tmp.resolve("fake");
        CliRunner a = CliRunner.run("run", program, "--random", "7", "--out", ref.toString());
        CliRunner b = CliRunner.run("cuda", "run", program, "--random", "7", "--out", fake.toString(), "--fake-driver", "--graphs");
        assertThat(a.exit()).as(a.err()).isZero();
        assertThat(b.exit()).as(b.out() + b.err()).isZero();
        assertThat(b.out()).contains("cuda-fake, precise math, graphs");
        assertThat(b.err()).contains("graphs: eager launches 0, graph captures 1, replays 1");
        try (Stream<Path> files = Files.list(ref)) {
            for (Path f : files.toList()) {
                assertThat(Files.readAllBytes(fake.resolve(f.getFileName()))).as(f.getFileName().toString()).isEqualTo(Files.readAllBytes(f));
            }
        }
    }

    @Test
    void theFakeDriverAndEmulationAreDifferentTargets() {
        CliRunner r = CliRunner.run("cuda", "run", "../examples/elementwise-chain.json", "--random", "7", "--out", tmp.resolve("x").toString(),
                "--fake-driver", "--emulate");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err().strip()).doesNotContain("\n").contains("--emulate and --fake-driver");
    }

    @Test
    void aDriverErrorWhileSettingUpIsOneLineAndExitTwo() throws Throwable {
        assumeFakeDriver();
        fakeDriverFails("cuModuleLoadData", 209);
        try {
            CliRunner r = CliRunner.run("cuda", "run", "../examples/elementwise-chain.json", "--random", "7", "--out", tmp.resolve("x").toString(),
                    "--fake-driver");
            assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(2);
            assertThat(r.err().strip()).doesNotContain("\n").startsWith("error: ").contains("CUDA_ERROR_NO_BINARY_FOR_GPU")
                    .doesNotContain("Exception");
            assertThat(tmp.resolve("x")).doesNotExist();
        } finally {
            fakeDriverFails("cuModuleLoadData", 0);
        }
    }

    @Test
    @Tag("slow") // compiles the fake driver and a program
    void diffReplaysTheFakeDriverBackendAgainstTheReference() {
        assumeFakeDriver();
        CliRunner r = CliRunner.run("diff", "--replay", "--program", "../examples/elementwise-chain.json", "--inputs",
                "../golden/cases/elementwise-chain", "--backend", "cuda-fake");
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
    }
}
