package org.stagecheck.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ExpertSplit;
import org.stagecheck.backend.MathMode;
import org.stagecheck.backend.RunResult;
import org.stagecheck.cuda.compile.FakeDriverLibrary;
import org.stagecheck.cuda.lower.Kernel;
import org.stagecheck.cuda.lower.LoweredProgram;
import org.stagecheck.cuda.runtime.CudaDriver;
import org.stagecheck.cuda.runtime.DriverLauncher;
import org.stagecheck.cuda.runtime.LaunchException;
import org.stagecheck.cuda.runtime.Launcher;
import org.stagecheck.cuda.runtime.SideBranches;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.tensor.RandomBindings;
import org.stagecheck.tensor.Tensor;

/**
 * The driver calls {@link DriverLauncher} makes, as the fake driver receives them through FFM
 * (its call log), and the driver's rules the fake holds them to: the side stream's fork and join
 * around side launches in a capture, the errors of an unjoined capture and of a synchronous call
 * inside one, kernels resolved before any capture, the context current per thread, entry points
 * by name and version, pointer bounds, the driver's name for every code, and a driver error while
 * opening surfacing as that error (never as a crash), with the driver left loaded for the next
 * launcher. Then graph mode on the tiny-moe decode step: one fork and one join per side branch,
 * only side-chain kernels on the side stream, and the values the reference computes.
 */
class FakeDriverCallsTest {
    private static CudaModule.Lowered unit;
    private static Path library;
    /** A program of the unit with at least three kernels, and its first kernel's number. */
    private static int program;
    private static int base;

    @BeforeAll
    static void compileOnce() throws Exception {
        FakeCuda.driver();
        unit = CudaModule.lower(FakeDriverPrograms.all());
        library = TestBackends.cache().hostLibrary(unit.source(), MathMode.PRECISE, FakeDriverPrograms.options().hostOpt());
        int kernels = 0;
        for (int i = 0; i < unit.programs().size(); i++) {
            if (unit.programs().get(i).kernels().size() >= 3) {
                program = i;
                base = kernels;
                return;
            }
            kernels += unit.programs().get(i).kernels().size();
        }
        throw new IllegalStateException("no program of the unit has three kernels");
    }

    @BeforeEach
    void logCalls() {
        FakeCuda.reset(true);
    }

    @AfterEach
    void quiet() {
        FakeCuda.reset(false);
    }

    private static DriverLauncher open() throws LaunchException {
        return DriverLauncher.open(CudaDriver.fake(), library, unit.source().kernels());
    }

    /** Kernel {@code k} of the chosen program: its number in the unit. */
    private static int kernel(int k) {
        return base + k;
    }

    private static Kernel k(int k) {
        return unit.source().kernels().get(kernel(k));
    }

    /** Device memory for the chosen program and its kernels' arguments (n first, set per launch). */
    private static long[] arguments(Launcher l) throws LaunchException {
        LoweredProgram p = unit.programs().get(program);
        int chips = p.memory().chips();
        long[] args = new long[chips + 3];
        for (int c = 0; c < chips; c++) {
            args[c + 1] = l.alloc(p.memory().chipBytes(c));
        }
        long control = l.alloc(64 + 8L * Math.max(1, p.memory().params().size()));
        args[chips + 1] = control + 64;
        args[chips + 2] = control;
        return args;
    }

    private static void launch(Launcher l, int k, long[] args, Launcher.Lane lane) throws LaunchException {
        long[] a = args.clone();
        a[0] = k(k).threads();
        l.launch(kernel(k), k(k).threads(), a, lane);
    }

    private static String launched(int k, int stream) {
        long threads = k(k).threads();
        return "cuLaunchKernel " + k(k).name() + " grid=" + (threads + 127) / 128 + " block=128 stream#" + stream + " threads=" + threads
                + " captured";
    }

    @Test
    void aForkAndAJoinAreEventRecordsAndStreamWaitsAroundTheSideLaunches() throws Throwable {
        try (DriverLauncher l = open()) {
            long[] args = arguments(l);
            l.beginCapture();
            // the first launches of these kernels happen inside the capture: they were resolved at load
            launch(l, 0, args, Launcher.Lane.MAIN);
            l.fork();
            launch(l, 1, args, Launcher.Lane.SIDE);
            l.join();
            launch(l, 2, args, Launcher.Lane.MAIN);
            Launcher.Graph g = l.endCapture();
            assertThat(g.launches()).isEqualTo(3);
            l.replay(g);
            l.synchronize();
            l.destroy(g);
        }
        assertThat(FakeCuda.log()).containsSubsequence(
                "cuStreamCreate stream#1 flags=0",
                "cuStreamCreate stream#2 flags=0",
                "cuEventCreate event#1 flags=2",
                "cuEventCreate event#2 flags=2",
                "cuStreamBeginCapture stream#1 mode=0",
                launched(0, 1),
                "cuEventRecord event#1 stream#1",
                "cuStreamWaitEvent stream#2 event#1 flags=0",
                launched(1, 2),
                "cuEventRecord event#2 stream#2",
                "cuStreamWaitEvent stream#1 event#2 flags=0",
                launched(2, 1),
                "cuStreamEndCapture stream#1 ok",
                "cuGraphLaunch graph#1 stream#1",
                "cuEventDestroy event#1",
                "cuEventDestroy event#2",
                "cuStreamDestroy stream#2",
                "cuStreamDestroy stream#1",
                "cuDevicePrimaryCtxRelease 0");
    }

    @Test
    void aCaptureLeftUnjoinedFailsWithTheDriversError() throws Throwable {
        try (DriverLauncher l = open()) {
            long[] args = arguments(l);
            l.beginCapture();
            launch(l, 0, args, Launcher.Lane.MAIN);
            l.fork();
            launch(l, 1, args, Launcher.Lane.SIDE);
            assertThatThrownBy(l::endCapture).isInstanceOf(LaunchException.class)
                    .satisfies(e -> assertThat(((LaunchException) e).errorName()).isEqualTo("CUDA_ERROR_STREAM_CAPTURE_UNJOINED"));
            // the capture is over: eager work goes on
            launch(l, 0, args, Launcher.Lane.MAIN);
            l.synchronize();
        }
        assertThat(FakeCuda.log()).contains("cuStreamEndCapture stream#1 unjoined");
    }

    @Test
    void aSynchronousCallInsideACaptureFailsAndInvalidatesIt() throws Throwable {
        try (DriverLauncher l = open()) {
            long[] args = arguments(l);
            l.beginCapture();
            launch(l, 0, args, Launcher.Lane.MAIN);
            assertThatThrownBy(l::synchronize).isInstanceOf(LaunchException.class)
                    .satisfies(e -> assertThat(((LaunchException) e).errorName()).isEqualTo("CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"));
            assertThatThrownBy(l::endCapture).isInstanceOf(LaunchException.class)
                    .satisfies(e -> assertThat(((LaunchException) e).errorName()).isEqualTo("CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"));
        }
        assertThat(FakeCuda.log()).contains("cuStreamEndCapture stream#1 invalidated");
    }

    @Test
    void copiesFreesAndKernelPointersOutsideEveryAllocationAreInvalidValues() throws Throwable {
        try (DriverLauncher l = open(); Arena a = Arena.ofConfined()) {
            long mem = l.alloc(64);
            MemorySegment bytes = a.allocate(16);
            l.upload(mem + 48, bytes, 16);
            assertThatThrownBy(() -> l.upload(mem + 56, bytes, 16)).isInstanceOf(LaunchException.class)
                    .satisfies(e -> assertThat(((LaunchException) e).errorName()).isEqualTo("CUDA_ERROR_INVALID_VALUE"));
            assertThatThrownBy(() -> l.download(mem + 64, bytes, 1)).isInstanceOf(LaunchException.class)
                    .satisfies(e -> assertThat(((LaunchException) e).errorName()).isEqualTo("CUDA_ERROR_INVALID_VALUE"));
            assertThatThrownBy(() -> l.free(mem + 8)).isInstanceOf(LaunchException.class)
                    .satisfies(e -> assertThat(((LaunchException) e).errorName()).isEqualTo("CUDA_ERROR_INVALID_VALUE"));
            long[] args = arguments(l);
            args[1] = mem + 64;
            assertThatThrownBy(() -> launch(l, 0, args, Launcher.Lane.MAIN)).isInstanceOf(LaunchException.class)
                    .satisfies(e -> assertThat(((LaunchException) e).errorName()).isEqualTo("CUDA_ERROR_INVALID_VALUE"));
            l.free(mem);
            assertThatThrownBy(() -> l.free(mem)).isInstanceOf(LaunchException.class);
        }
    }

    @Test
    void aThreadThatDidNotMakeTheContextCurrentGetsInvalidContext() throws Throwable {
        MethodHandle alloc = FakeCuda.entry("cuMemAlloc", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
        try (DriverLauncher l = open(); Arena a = Arena.ofConfined()) {
            l.alloc(8);   // the launcher's own thread has the context
            MemorySegment p = a.allocate(JAVA_LONG);
            assertThat((int) alloc.invokeExact(p, 8L)).isEqualTo(201);
        }
    }

    @Test
    void entryPointsAreFoundByNameAndVersionAsTheDriverFindsThem() {
        assertThat(FakeCuda.procAddress("cuMemAlloc", 12000)).satisfies(p -> {
            assertThat(p.result()).isZero();
            assertThat(p.status()).isZero();
            assertThat(p.function().address()).isNotZero();
        });
        // cuMemAlloc's ABI (the _v2 one) arrived in 3.2; cuGraphInstantiateWithFlags in 11.4
        assertThat(FakeCuda.procAddress("cuMemAlloc", 3010)).extracting(FakeCuda.ProcAddress::result, FakeCuda.ProcAddress::status)
                .containsExactly(500, 2);
        assertThat(FakeCuda.procAddress("cuGraphInstantiateWithFlags", 11030).result()).isEqualTo(500);
        assertThat(FakeCuda.procAddress("cuGraphInstantiateWithFlags", 11040).result()).isZero();
        assertThat(FakeCuda.procAddress("cuNoSuchEntryPoint", 12000)).extracting(FakeCuda.ProcAddress::result, FakeCuda.ProcAddress::status)
                .containsExactly(500, 1);
    }

    @Test
    void everyCodeTheFakeReturnsHasTheDriversName() throws Throwable {
        MethodHandle name = FakeCuda.entry("cuGetErrorName", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
        Matcher m = Pattern.compile("\\b(CUDA_(?:SUCCESS|ERROR_\\w+)) = (\\d+),").matcher(FakeDriverLibrary.source());
        List<String> seen = new ArrayList<>();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ADDRESS);
            while (m.find()) {
                assertThat((int) name.invokeExact(Integer.parseInt(m.group(2)), out)).isZero();
                assertThat(out.get(ADDRESS, 0).reinterpret(128).getString(0)).isEqualTo(m.group(1));
                seen.add(m.group(1));
            }
            assertThat((int) name.invokeExact(12345, out)).isEqualTo(1);
        }
        assertThat(seen).contains("CUDA_ERROR_NO_BINARY_FOR_GPU", "CUDA_ERROR_STREAM_CAPTURE_UNJOINED", "CUDA_ERROR_INVALID_CONTEXT").hasSizeGreaterThan(20);
    }

    @ParameterizedTest
    @CsvSource({"cuModuleLoadData, 209, CUDA_ERROR_NO_BINARY_FOR_GPU", "cuDeviceGet, 100, CUDA_ERROR_NO_DEVICE",
            "cuMemAlloc, 2, CUDA_ERROR_OUT_OF_MEMORY", "cuModuleGetFunction, 500, CUDA_ERROR_NOT_FOUND"})
    void aDriverErrorWhileOpeningIsThatErrorAndTheDriverStaysUsable(String symbol, int rc, String name) throws Exception {
        Program p = FakeDriverPrograms.all().get(program);
        CudaOptions o = FakeDriverPrograms.options();
        FakeCuda.fail(symbol, rc);
        try {
            Map<String, Tensor> bound = RandomBindings.forProgram(p, 3);
            Map<String, Long> params = new LinkedHashMap<>();
            p.params().forEach(prm -> params.put(prm.name(), prm.min()));
            RunResult failed = new CudaBackend(o).run(p, bound, params, false);
            assertThat(failed.faults()).singleElement().satisfies(d -> {
                assertThat(d.code()).isEqualTo(name);
                assertThat(d.message()).contains(symbol + " returned " + name + " (" + rc + ")");
            });
        } finally {
            FakeCuda.fail(symbol, 0);
        }
        Map<String, Tensor> bound = RandomBindings.forProgram(p, 3);
        Map<String, Long> params = new LinkedHashMap<>();
        p.params().forEach(prm -> params.put(prm.name(), prm.min()));
        RunResult ok = new CudaBackend(o).run(p, bound, params, false);
        RunResult ref = new Interpreter(RunOptions.defaults().withThreads(1)).run(p, bound, params, false);
        assertThat(ok.faults()).isEmpty();
        assertThat(Agreement.compare(p, ref, ok)).isEmpty();
    }

    @Test
    void theEnvironmentsFailureListInjectsEachFailure() throws Throwable {
        FakeCuda.failSpec("cuStreamCreate=2,malformed,cuEventCreate=999");
        assertThatThrownBy(FakeDriverCallsTest::open).isInstanceOf(LaunchException.class)
                .satisfies(e -> assertThat(((LaunchException) e).errorName()).isEqualTo("CUDA_ERROR_OUT_OF_MEMORY"));
        FakeCuda.fail("cuStreamCreate", 0);
        assertThatThrownBy(FakeDriverCallsTest::open).isInstanceOf(LaunchException.class)
                .satisfies(e -> assertThat(((LaunchException) e).errorName()).isEqualTo("CUDA_ERROR_UNKNOWN"));
        FakeCuda.fail("cuEventCreate", 0);
        open().close();
        assertThat(FakeCuda.log()).contains("cuStreamCreate injected 2", "cuEventCreate injected 999");
    }

    @Test
    void launchersShareTheOneDriverAndClosingOneLeavesItLoadedForTheOthers() throws Throwable {
        assertThat(CudaDriver.fake()).isSameAs(CudaDriver.fake());
        try (DriverLauncher kept = open(); Arena a = Arena.ofConfined()) {
            open().close();
            long mem = kept.alloc(8);
            MemorySegment v = a.allocate(JAVA_LONG);
            v.set(JAVA_LONG, 0, 42);
            kept.upload(mem, v, 8);
            MemorySegment back = a.allocate(JAVA_LONG);
            kept.download(mem, back, 8);
            assertThat(back.get(JAVA_LONG, 0)).isEqualTo(42);
        }
    }

    @Test
    void imagesForAnotherMachineAndLaunchesBeyondTheDeviceLimitsAreRefused() throws Throwable {
        MethodHandle retain = FakeCuda.entry("cuDevicePrimaryCtxRetain", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        MethodHandle release = FakeCuda.entry("cuDevicePrimaryCtxRelease", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        MethodHandle setCurrent = FakeCuda.entry("cuCtxSetCurrent", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
        MethodHandle load = FakeCuda.entry("cuModuleLoadData", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        MethodHandle unload = FakeCuda.entry("cuModuleUnload", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
        MethodHandle function = FakeCuda.entry("cuModuleGetFunction", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));
        MethodHandle stream = FakeCuda.entry("cuStreamCreate", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        MethodHandle destroy = FakeCuda.entry("cuStreamDestroy", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
        MethodHandle alloc = FakeCuda.entry("cuMemAlloc", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
        MethodHandle free = FakeCuda.entry("cuMemFree", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
        MethodHandle launch = FakeCuda.entry("cuLaunchKernel", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT,
                JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS, ADDRESS));
        // the launcher initialises the driver; this thread then takes the primary context itself
        try (DriverLauncher l = open(); Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(JAVA_LONG);
            assertThat((int) retain.invokeExact(out, 0)).isZero();
            long ctx = out.get(JAVA_LONG, 0);
            try {
                assertThat((int) setCurrent.invokeExact(ctx)).isZero();
                byte[] image = java.nio.file.Files.readAllBytes(library);
                MemorySegment img = a.allocate(image.length);
                MemorySegment.copy(MemorySegment.ofArray(image), 0, img, 0, image.length);
                // e_machine (offset 18) of another machine: the driver's answer to a cubin for another GPU
                short machine = img.get(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, 18);
                img.set(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, 18, (short) 190);
                assertThat((int) load.invokeExact(out, img)).isEqualTo(209);
                img.set(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, 18, machine);
                assertThat((int) load.invokeExact(out, a.allocateFrom("// PTX text"))).isEqualTo(200);
                assertThat((int) load.invokeExact(out, img)).isZero();
                long module = out.get(JAVA_LONG, 0);
                assertThat((int) function.invokeExact(out, module, a.allocateFrom("no_such_kernel"))).isEqualTo(500);
                assertThat((int) function.invokeExact(out, module, a.allocateFrom(k(0).name()))).isZero();
                long fn = out.get(JAVA_LONG, 0);
                assertThat((int) stream.invokeExact(out, 0)).isZero();
                long s = out.get(JAVA_LONG, 0);
                assertThat((int) alloc.invokeExact(out, 4096L)).isZero();
                long mem = out.get(JAVA_LONG, 0);
                int arity = unit.programs().get(program).memory().chips() + 3;
                MemorySegment values = a.allocate(JAVA_LONG, arity);
                MemorySegment params = a.allocate(ADDRESS, arity);
                for (int i = 0; i < arity; i++) {
                    values.setAtIndex(JAVA_LONG, i, i == 0 ? 1 : mem);
                    params.setAtIndex(ADDRESS, i, values.asSlice(8L * i, 8));
                }
                // 1025 threads in a block, a z block of 65, grid y and z beyond 65535: refused before anything runs
                assertThat((int) launch.invokeExact(fn, 1, 1, 1, 1025, 1, 1, 0, s, params, MemorySegment.NULL)).isEqualTo(1);
                assertThat((int) launch.invokeExact(fn, 1, 1, 1, 1, 1, 65, 0, s, params, MemorySegment.NULL)).isEqualTo(1);
                assertThat((int) launch.invokeExact(fn, 1, 65536, 1, 128, 1, 1, 0, s, params, MemorySegment.NULL)).isEqualTo(1);
                assertThat((int) launch.invokeExact(fn, 1, 1, 65536, 128, 1, 1, 0, s, params, MemorySegment.NULL)).isEqualTo(1);
                assertThat((int) launch.invokeExact(fn, 0, 1, 1, 128, 1, 1, 0, s, params, MemorySegment.NULL)).isEqualTo(1);
                assertThat((int) launch.invokeExact(fn, 1, 1, 1, 128, 1, 1, 64 * 1024, s, params, MemorySegment.NULL)).isEqualTo(1);
                assertThat((int) free.invokeExact(mem)).isZero();
                assertThat((int) destroy.invokeExact(s)).isZero();
                assertThat((int) unload.invokeExact(module)).isZero();
            } finally {
                assertThat((int) setCurrent.invokeExact(0L)).isZero();
                assertThat((int) release.invokeExact(0)).isZero();
            }
        }
    }

    @Test
    void graphModeOnTheMoeDecodeStepForksTheSharedExpertsAndComputesTheReferencesValues() throws Throwable {
        // the four cuts of MoeGraphModeTest in its order and options: its compiled unit is reused
        List<AuthorOutcome.Authored> cuts = List.of(
                MoeGraphModeTest.author(Cut.decode(MoeGraphModeTest.CTX), AuthorOptions.single()),
                MoeGraphModeTest.author(Cut.prefill(4, MoeGraphModeTest.CTX), AuthorOptions.single()),
                MoeGraphModeTest.author(Cut.decode(MoeGraphModeTest.CTX), AuthorOptions.split(2).withExpertSplit(ExpertSplit.EXPERT_PARALLEL)),
                MoeGraphModeTest.author(Cut.decode(MoeGraphModeTest.CTX), AuthorOptions.split(2).withExpertSplit(ExpertSplit.TENSOR_PARALLEL)));
        AuthorOutcome.Authored a = cuts.getFirst();
        Program p = a.program();
        List<SideBranches.Branch> branches = SideBranches.of(p);
        assertThat(branches).isNotEmpty();
        CudaOptions o = MoeGraphModeTest.options().withTarget(CudaOptions.Target.FAKE_DRIVER);
        try (CudaModule m = new CudaBackend(o).openAll(cuts.stream().map(AuthorOutcome.Authored::program).toList());
             CudaSession s = CudaSession.of(m, 0, true)) {
            Map<String, Tensor> bound = new LinkedHashMap<>(a.bound());
            Map<String, Tensor> refBound = new LinkedHashMap<>(a.bound());
            for (long pos = 0; pos < 2; pos++) {
                Map<String, Long> params = Map.of("pos", pos);
                RunResult r = s.step(bound, params);
                RunResult ref = new Interpreter(RunOptions.defaults().withThreads(1)).run(p, refBound, params, false);
                assertThat(r.faults()).isEmpty();
                for (var t : ref.tensors().entrySet()) {
                    assertThat(Agreement.differ(t.getValue(), r.tensor(t.getKey()), true)).as("pos %d tensor %s", pos, t.getKey()).isNull();
                }
                bound = TinyModelDifferentialTest.carry(p, bound, r);
                refBound = TinyModelDifferentialTest.carry(p, refBound, ref);
            }
            assertThat(s.counters().sideForks()).isEqualTo(branches.size());
            assertThat(s.counters().eagerFallbacks()).isZero();
        }
        List<String> calls = FakeCuda.log();
        assertThat(calls.stream().filter(c -> c.startsWith("cuStreamWaitEvent stream#2 event#1"))).hasSize(branches.size());
        assertThat(calls.stream().filter(c -> c.startsWith("cuStreamWaitEvent stream#1 event#2"))).hasSize(branches.size());
        assertThat(calls).noneMatch(c -> c.contains("outside-capture") || c.contains(" unjoined") || c.contains("invalidated"));
        List<String> side = calls.stream().filter(c -> c.startsWith("cuLaunchKernel") && c.contains("stream#2")).toList();
        assertThat(side).isNotEmpty();
        for (String c : side) {
            // kernel names are p<program>_k<stage index>_<id> in a unit of several programs
            Matcher name = Pattern.compile("^p0_k(\\d+)_").matcher(c.split(" ")[1]);
            assertThat(name.find()).as(c).isTrue();
            int stage = Integer.parseInt(name.group(1));
            assertThat(branches).as(c).anyMatch(b -> b.onSide(stage));
        }
        long sideStages = branches.stream().mapToLong(b -> b.join() - b.sideFrom()).sum();
        assertThat((long) side.size()).isGreaterThanOrEqualTo(sideStages);
        assertThat(calls.stream().filter(c -> c.startsWith("cuGraphLaunch"))).isNotEmpty();
    }
}
