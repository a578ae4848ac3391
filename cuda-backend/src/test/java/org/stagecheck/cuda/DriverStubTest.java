package org.stagecheck.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.cuda.lower.Kernel;
import org.stagecheck.cuda.runtime.CudaDriver;
import org.stagecheck.cuda.runtime.DriverLauncher;
import org.stagecheck.cuda.runtime.LaunchException;
import org.stagecheck.cuda.runtime.Launcher;
import org.stagecheck.cuda.runtime.LauncherFactory;
import org.stagecheck.cuda.runtime.SideBranches;
import org.stagecheck.spec.ir.Program;

/**
 * The driver path without a GPU: {@link DriverLauncher} on a stand-in {@code libcuda}
 * (test resource {@code libcuda_stub.c}, built here by the C compiler) that logs every call with
 * its arguments as the driver received them through FFM. Holds the side stream's calls: a second
 * stream and two events made at start, a fork as {@code cuEventRecord(fork, main)} then
 * {@code cuStreamWaitEvent(side, fork)}, side launches on the side stream inside the capture, a
 * join as {@code cuEventRecord(join, side)} then {@code cuStreamWaitEvent(main, join)}, and a
 * capture left unjoined failing with the driver's error. Then graph mode on the tiny-moe decode
 * step through the stub: every side launch is a side chain's kernel, one fork and one join per
 * branch. Kernels do not run (the stub has no GPU): values are not checked here.
 */
class DriverStubTest {
    private static Path stub;
    /** The stub ignores the image it is given. */
    private static Path cubin;
    private static Arena arena;
    private static MethodHandle log;
    private static MethodHandle reset;

    @BeforeAll
    static void buildStub() throws Exception {
        Path dir = Path.of("target", "driver-stub");
        Files.createDirectories(dir);
        Path src = dir.resolve("libcuda_stub.c");
        try (InputStream in = DriverStubTest.class.getResourceAsStream("libcuda_stub.c")) {
            Files.write(src, in.readAllBytes());
        }
        stub = dir.resolve("libcuda_stub.so").toAbsolutePath();
        cubin = dir.resolve("empty.cubin");
        Files.write(cubin, new byte[] {0});
        Process cc;
        try {
            cc = new ProcessBuilder("cc", "-shared", "-fPIC", "-O0", "-o", stub.toString(), src.toString()).redirectErrorStream(true).start();
        } catch (IOException e) {
            assumeTrue(false, "no C compiler (cc) to build the driver stub: " + e.getMessage());
            return;
        }
        String out = new String(cc.getInputStream().readAllBytes());
        assertThat(cc.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(cc.exitValue()).as(out).isZero();
        arena = Arena.ofShared();
        SymbolLookup lib = SymbolLookup.libraryLookup(stub, arena);
        Linker linker = Linker.nativeLinker();
        log = linker.downcallHandle(lib.find("stub_log").orElseThrow(), FunctionDescriptor.of(ValueLayout.ADDRESS));
        reset = linker.downcallHandle(lib.find("stub_reset").orElseThrow(), FunctionDescriptor.ofVoid());
    }

    @AfterAll
    static void unload() {
        if (arena != null) {
            arena.close();
        }
    }

    @BeforeEach
    void resetStub() throws Throwable {
        reset.invokeExact();
    }

    private static List<String> calls() throws Throwable {
        MemorySegment s = (MemorySegment) log.invokeExact();
        return Arrays.stream(s.reinterpret(Long.MAX_VALUE).getString(0).split("\n")).filter(l -> !l.isEmpty()).toList();
    }

    private static DriverLauncher open(List<Kernel> kernels) throws LaunchException {
        return DriverLauncher.open(CudaDriver.open(stub.toString()), cubin, kernels);
    }

    private static final List<Kernel> THREE = List.of(new Kernel(0, "a", "k0_a", 256), new Kernel(1, "b", "k1_b", 100),
            new Kernel(2, "c", "k2_c", 64));

    @Test
    void aForkAndAJoinAreEventRecordsAndStreamWaitsAroundTheSideLaunches() throws Throwable {
        try (DriverLauncher l = open(THREE)) {
            long mem = l.alloc(64);
            l.beginCapture();
            l.launch(0, 256, new long[] {256, mem, mem, mem}, Launcher.Lane.MAIN);
            l.fork();
            l.launch(1, 100, new long[] {100, mem, mem, mem}, Launcher.Lane.SIDE);
            l.join();
            l.launch(2, 64, new long[] {64, mem, mem, mem}, Launcher.Lane.MAIN);
            Launcher.Graph g = l.endCapture();
            l.replay(g);
            l.destroy(g);
        }
        assertThat(calls()).containsSubsequence(
                "cuStreamCreate stream#1 flags=0",
                "cuStreamCreate stream#2 flags=0",
                "cuEventCreate event#1 flags=2",
                "cuEventCreate event#2 flags=2",
                "cuStreamBeginCapture stream#1 mode=0",
                "cuLaunchKernel k0_a grid=2 block=128 stream#1 threads=256 captured",
                "cuEventRecord event#1 stream#1",
                "cuStreamWaitEvent stream#2 event#1 flags=0",
                "cuLaunchKernel k1_b grid=1 block=128 stream#2 threads=100 captured",
                "cuEventRecord event#2 stream#2",
                "cuStreamWaitEvent stream#1 event#2 flags=0",
                "cuLaunchKernel k2_c grid=1 block=128 stream#1 threads=64 captured",
                "cuStreamEndCapture stream#1 ok",
                "cuGraphLaunch graph#1 stream#1",
                "cuEventDestroy event#1",
                "cuEventDestroy event#2",
                "cuStreamDestroy stream#2",
                "cuStreamDestroy stream#1");
    }

    @Test
    void aCaptureLeftUnjoinedFailsWithTheDriversError() throws Throwable {
        try (DriverLauncher l = open(THREE)) {
            long mem = l.alloc(64);
            l.beginCapture();
            l.launch(0, 256, new long[] {256, mem, mem, mem}, Launcher.Lane.MAIN);
            l.fork();
            l.launch(1, 100, new long[] {100, mem, mem, mem}, Launcher.Lane.SIDE);
            assertThatThrownBy(l::endCapture).isInstanceOf(LaunchException.class)
                    .satisfies(e -> assertThat(((LaunchException) e).errorName()).isEqualTo("CUDA_ERROR_STREAM_CAPTURE_UNJOINED"));
        }
        assertThat(calls()).contains("cuStreamEndCapture stream#1 unjoined");
    }

    @Test
    void graphModeOnTheMoeDecodeStepForksTheSharedExpertsThroughTheDriver() throws Throwable {
        AuthorOutcome.Authored a = MoeGraphModeTest.author(Cut.decode(MoeGraphModeTest.CTX), AuthorOptions.single());
        Program p = a.program();
        List<SideBranches.Branch> branches = SideBranches.of(p);
        LauncherFactory stubbed = (source, o) -> open(source.kernels());
        try (CudaModule m = CudaModule.build(List.of(p), TestBackends.emulation().withGraphs(true).withSegmentStages(MoeGraphModeTest.SEGMENT), stubbed);
             CudaSession s = CudaSession.of(m, 0, true)) {
            for (int pos = 0; pos < 2; pos++) {
                assertThat(s.step(a.bound(), Map.of("pos", (long) pos)).faults()).isEmpty();
            }
            assertThat(s.counters().sideForks()).isEqualTo(branches.size());
        }
        List<String> calls = calls();
        assertThat(calls.stream().filter(c -> c.startsWith("cuStreamWaitEvent stream#2 event#1"))).hasSize(branches.size());
        assertThat(calls.stream().filter(c -> c.startsWith("cuStreamWaitEvent stream#1 event#2"))).hasSize(branches.size());
        assertThat(calls).noneMatch(c -> c.contains("outside-capture") || c.contains(" unjoined"));
        List<String> side = calls.stream().filter(c -> c.startsWith("cuLaunchKernel") && c.contains("stream#2")).toList();
        assertThat(side).isNotEmpty();
        for (String c : side) {
            // kernel names are k<stage index>_<id>
            int stage = Integer.parseInt(c.split(" ")[1].substring(1).split("_")[0]);
            assertThat(branches).as(c).anyMatch(b -> b.onSide(stage));
        }
        long sideStages = branches.stream().mapToLong(b -> b.join() - b.sideFrom()).sum();
        assertThat((long) side.size()).isGreaterThanOrEqualTo(sideStages);
        assertThat(calls.stream().filter(c -> c.startsWith("cuGraphLaunch"))).isNotEmpty();
    }
}
