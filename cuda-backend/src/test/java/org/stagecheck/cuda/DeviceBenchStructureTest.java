package org.stagecheck.cuda;

import org.stagecheck.cuda.runtime.ForwardingLauncher;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.cuda.runtime.DeviceBench;
import org.stagecheck.cuda.runtime.DeviceTiming;
import org.stagecheck.cuda.runtime.LaunchException;
import org.stagecheck.cuda.runtime.Launcher;
import org.stagecheck.cuda.runtime.LauncherFactory;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;

/**
 * The benchmark's structure without a GPU: host emulation under a fake clock that charges
 * {@link Clock#KERNEL_MS} per kernel run and {@link Clock#CALL_MS} per host call that starts device
 * work (a launch, a replay). Holds that each kernel is timed as one replay of a graph of N launches
 * (not N launches from the host), that the launches rotate over copies of the chips sized from the
 * L2 and never touch the program's own memory, that bandwidth is bytes over time, and that the
 * launch overhead of eager and replayed steps is what the clock charged above the kernels.
 */
@Tag("slow")
class DeviceBenchStructureTest {
    private static final int REPS = 3;
    private static AuthorOutcome.Authored decode;
    private static Clock clock;
    private static CudaModule module;

    @BeforeAll
    static void compileOnce() throws Exception {
        decode = TinyModelDifferentialTest.author(Cut.decode(TinyModelDifferentialTest.CTX), AuthorOptions.single());
        module = CudaModule.build(List.of(decode.program()), GraphModeTest.options(), (source, o) -> {
            clock = new Clock(LauncherFactory.emulation().open(source, o));
            return clock;
        });
    }

    @AfterAll
    static void close() {
        if (module != null) {
            module.close();
        }
    }

    @Test
    void eachKernelIsOneReplayOfAGraphOfNLaunchesRotatingOverCopiesBeyondL2() throws Exception {
        Program p = decode.program();
        int kernels = module.lowered().getFirst().kernels().size();
        long copyBytes = Arrays.stream(module.lowered().getFirst().memory().allChipBytes()).sum();
        int chips = p.machine().chips();
        // an L2 as large as one copy: four copies make four times the L2
        clock.l2 = copyBytes;
        try (CudaSession s = CudaSession.of(module, 0, true)) {
            clock.captures.clear();
            DeviceBench.Report r = DeviceBench.measure(s.runner(), clock, decode.bound(), Map.of("pos", 0L), REPS);

            assertThat(r.launchesPerKernel()).isEqualTo(REPS);
            assertThat(r.copies()).isEqualTo(4);
            assertThat(r.copyBytes()).isEqualTo(copyBytes);
            assertThat(r.faultedStage()).isNull();
            assertThat(r.kernels()).hasSize(kernels);

            // one capture per kernel holding REPS launches of it, in kernel order
            List<List<long[]>> bench = clock.captures.stream().filter(c -> c.size() == REPS && c.stream().allMatch(l -> l[0] == c.getFirst()[0]))
                    .toList();
            assertThat(bench).hasSize(kernels);
            for (int k = 0; k < kernels; k++) {
                assertThat(bench.get(k).getFirst()[0]).isEqualTo(k);
            }
            // launch j of the benchmark runs on copy j mod 4; no copy is the program's own memory
            List<long[]> bases = new ArrayList<>();
            for (List<long[]> c : bench) {
                for (long[] launch : c) {
                    bases.add(Arrays.copyOfRange(launch, 2, 2 + chips));
                }
            }
            Set<List<Long>> distinct = new HashSet<>();
            for (int j = 0; j < bases.size(); j++) {
                assertThat(bases.get(j)).isEqualTo(bases.get(j % 4));
                distinct.add(Arrays.stream(bases.get(j)).boxed().toList());
            }
            // the step's own segment graphs run on the program's chips
            List<Long> own = Arrays.stream(Arrays.copyOfRange(clock.captures.getFirst().getFirst(), 2, 2 + chips)).boxed().toList();
            assertThat(clock.captures.getFirst()).hasSizeGreaterThan(REPS);
            assertThat(distinct).hasSize(4).doesNotContain(own);
            assertThat(clock.freed).containsAll(distinct.stream().flatMap(List::stream).toList());

            // the clock's charge for one replay of REPS launches, per launch
            double kernelMicros = (REPS * Clock.KERNEL_MS + Clock.CALL_MS) * 1000 / REPS;
            for (int k = 0; k < kernels; k++) {
                DeviceBench.KernelTime t = r.kernels().get(k);
                Stage st = p.stages().get(module.lowered().getFirst().kernels().get(k).stageIndex());
                assertThat(t.micros()).isCloseTo(kernelMicros, within(1e-3));
                assertThat(t.bytes()).isEqualTo(stageBytes(p, st));
                assertThat(t.gbPerSecond()).isCloseTo(t.bytes() / (kernelMicros * 1e-6) / 1e9, within(1e-3 * Math.max(1, t.gbPerSecond())));
                assertThat(t.beyondL2()).isEqualTo(3 * t.bytes() >= copyBytes);
            }
            assertThat(r.kernelMs()).isCloseTo(kernels * kernelMicros / 1000, within(1e-4));
            long segments = s.counters().captures();
            assertThat(segments).isGreaterThan(1);
            // eager: every kernel a host call; replayed: one host call per segment
            assertThat(r.eagerOverheadMicros()).isCloseTo((Clock.KERNEL_MS + Clock.CALL_MS) * 1000 - kernelMicros, within(1e-2));
            assertThat(r.graphOverheadMicros())
                    .isCloseTo((kernels * Clock.KERNEL_MS + segments * Clock.CALL_MS) * 1000 / kernels - kernelMicros, within(1e-2));
            assertThat(DeviceBench.text(r, 5)).contains("a graph of 3 launches", "rotating over 4 copies", "launch overhead per kernel");
        }
    }

    @Test
    void hostEmulationIsNotTimed() throws Exception {
        try (CudaSession s = new CudaBackend(TestBackends.emulation()).prepare(decode.program())) {
            assertThatThrownBy(() -> DeviceBench.measure(s.runner(), decode.bound(), Map.of("pos", 0L), 1))
                    .isInstanceOf(LaunchException.class).hasMessageContaining("cuda-emu");
        }
    }

    /** Bytes a stage moves, counted here independently: its buffers, twice for a Load or a Store. */
    private static long stageBytes(Program p, Stage st) {
        long n = 0;
        for (String b : st.ins()) {
            n += p.buffersByName().get(b).shape().elementCount() * p.buffersByName().get(b).dtype().byteSize();
        }
        for (String b : st.outs()) {
            n += p.buffersByName().get(b).shape().elementCount() * p.buffersByName().get(b).dtype().byteSize();
        }
        return st.kind() instanceof StageKind.Load || st.kind() instanceof StageKind.Store ? 2 * n : n;
    }

    /** Host emulation with a fake clock: device time is charged per kernel run and per host call that starts work. */
    private static final class Clock extends ForwardingLauncher implements DeviceTiming {
        static final double KERNEL_MS = 0.004;
        static final double CALL_MS = 0.010;
        long l2;
        private long kernelsRun;
        private long calls;
        private List<long[]> capturing;
        /** Each capture's launches: kernel number, then the argument values. */
        final List<List<long[]>> captures = new ArrayList<>();
        final List<Long> freed = new ArrayList<>();

        Clock(Launcher inner) {
            super(inner);
        }

        @Override
        public void launch(int kernel, long threads, long[] args, Lane lane) throws LaunchException {
            if (capturing != null) {
                long[] l = new long[args.length + 1];
                l[0] = kernel;
                System.arraycopy(args, 0, l, 1, args.length);
                capturing.add(l);
            } else {
                kernelsRun++;
                calls++;
            }
            super.launch(kernel, threads, args, lane);
        }

        @Override
        public void beginCapture() throws LaunchException {
            capturing = new ArrayList<>();
            super.beginCapture();
        }

        @Override
        public Graph endCapture() throws LaunchException {
            captures.add(capturing);
            capturing = null;
            return super.endCapture();
        }

        @Override
        public void replay(Graph graph) throws LaunchException {
            kernelsRun += graph.launches();
            calls++;
            super.replay(graph);
        }

        @Override
        public void free(long address) throws LaunchException {
            freed.add(address);
            super.free(address);
        }

        @Override
        public String device() {
            return "fake clock over host emulation";
        }

        @Override
        public double peakBandwidthGBs() {
            return 1000;
        }

        @Override
        public long l2CacheBytes() {
            return l2;
        }

        @Override
        public float time(Work work) throws LaunchException {
            long k = kernelsRun;
            long c = calls;
            work.run();
            return (float) ((kernelsRun - k) * KERNEL_MS + (calls - c) * CALL_MS);
        }
    }
}
