package org.stagecheck.cuda.runtime;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.stagecheck.backend.RunResult;
import org.stagecheck.cuda.lower.Kernel;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.tensor.Tensor;

/**
 * The GPU benchmark of a step (bin/gpu-check; docs/cuda.md). What it times is the device, not
 * the host's launch path:
 *
 * <ul>
 * <li>each kernel as a graph of {@code reps} launches of it, captured once and replayed between
 *     two events, so no host work (the driver thread's hop, the call through FFM) falls between
 *     launches; its time is the window over {@code reps}, its bandwidth the bytes its stage reads
 *     and writes over that time, against the device's peak;</li>
 * <li>on data beyond the L2 cache: the launches rotate over copies of the program's chip
 *     allocations, as many as make {@link #ROTATION} times the device's L2 (at least two, within
 *     {@link #COPY_BUDGET} bytes), so a launch does not find the previous launch's data in L2; a
 *     kernel whose bytes are too few for that is flagged {@code l2} in the report;</li>
 * <li>a whole step eager (one launch per kernel through the runtime, as a step without graphs
 *     runs) and replayed from the step's segment graphs: what each costs per kernel above the
 *     kernels' own time is the launch overhead of each mode. The two are timed apart (the kernels
 *     alone on data beyond L2, the step on its own, warmer data), so a step can take less than its
 *     kernels alone: its overhead is then below what this bench resolves, and reported so, never
 *     as a negative time.</li>
 * </ul>
 */
public final class DeviceBench {
    /** The rotated copies hold at least this many times the L2 cache. */
    public static final int ROTATION = 4;
    /** The rotated copies take at most this many bytes of device memory. */
    public static final long COPY_BUDGET = 8L << 30;

    private DeviceBench() {
    }

    /**
     * One kernel's figure.
     *
     * @param bytes       bytes its stage reads and writes per launch
     * @param micros      device time per launch
     * @param gbPerSecond {@code bytes} over {@code micros}
     * @param beyondL2    whether the launches between two uses of one copy move more than the L2 holds
     */
    public record KernelTime(String stageId, String kernel, long bytes, double micros, double gbPerSecond, boolean beyondL2) {}

    /**
     * The figures of one program.
     *
     * @param launchesPerKernel launches in each kernel's timed graph
     * @param copies            copies of the chip allocations the launches rotate over
     * @param copyBytes         bytes of one copy
     * @param eagerMs           one step launched kernel by kernel
     * @param graphMs           one step replayed from its segment graphs
     * @param faultedStage      the stage whose kernel recorded a data fault while the kernels were
     *                          timed (later kernels then returned at once: their times mean nothing), or null
     */
    public record Report(String device, double peakGBs, long l2Bytes, int stages, int launchesPerKernel, int copies, long copyBytes,
                         List<KernelTime> kernels, double eagerMs, double graphMs, String faultedStage) {
        public Report {
            kernels = List.copyOf(kernels);
        }

        /** The kernels' own time per step: the sum of their times alone, in milliseconds. */
        public double kernelMs() {
            return kernels.stream().mapToDouble(KernelTime::micros).sum() / 1000;
        }

        /**
         * Time per launch above the kernels' own in an eager step, in microseconds: a difference of
         * two timings, negative when the step took less than its kernels alone ({@link #overheadText}).
         */
        public double eagerOverheadMicros() {
            return kernels.isEmpty() ? 0 : (eagerMs - kernelMs()) * 1000 / kernels.size();
        }

        /** Time per launch above the kernels' own in a replayed step, in microseconds (a difference, as {@link #eagerOverheadMicros}). */
        public double graphOverheadMicros() {
            return kernels.isEmpty() ? 0 : (graphMs - kernelMs()) * 1000 / kernels.size();
        }

        /** Launch overhead per stage that graphs remove, in microseconds (negative when the replayed step was the slower). */
        public double savedMicrosPerStage() {
            return (eagerMs - graphMs) * 1000 / stages;
        }

        /** A step's time over its kernels' time alone: above 1 where launching costs time. */
        public double ratioToKernels(double stepMs) {
            return kernelMs() == 0 ? 0 : stepMs / kernelMs();
        }

        /**
         * An overhead per launch in words: the microseconds when the step took longer than its
         * kernels alone, else that it is below this bench's resolution (the difference of two
         * timings taken apart is then noise and placement, not a time a launch saves).
         */
        public static String overheadText(double micros) {
            return micros > 0 ? String.format(java.util.Locale.ROOT, "%.2f us", micros) : "below timing resolution";
        }

        /** What replay saves per stage in words: the microseconds, or that the replayed step was not faster. */
        public String savedText() {
            double saved = savedMicrosPerStage();
            return saved > 0 ? String.format(java.util.Locale.ROOT, "%.2f us per stage saved by replay", saved)
                    : String.format(java.util.Locale.ROOT, "replay saved nothing measurable: %.2f us per stage slower", -saved);
        }
    }

    /** Bytes a stage reads and writes: its input and output buffers (a Load or Store moves its buffer twice). */
    static long bytes(Program p, Stage st) {
        Map<String, BufferDecl> b = p.buffersByName();
        long n = 0;
        for (String in : st.ins()) {
            n += b.get(in).shape().elementCount() * b.get(in).dtype().byteSize();
        }
        for (String out : st.outs()) {
            n += b.get(out).shape().elementCount() * b.get(out).dtype().byteSize();
        }
        boolean moves = st.kind() instanceof StageKind.Load || st.kind() instanceof StageKind.Store;
        return moves ? 2 * n : n;
    }

    /** Copies of {@code copyBytes} each to rotate over: {@link #ROTATION} times the L2 in all, at least two, within the budget. */
    static int copies(long l2Bytes, long copyBytes) {
        long wanted = Math.max(2, (ROTATION * l2Bytes + copyBytes - 1) / copyBytes);
        long affordable = Math.max(1, COPY_BUDGET / copyBytes);
        return (int) Math.min(wanted, affordable);
    }

    /**
     * Measures {@code runner} on the GPU (its launcher must be a {@link DriverLauncher}): one
     * warm-up step with graphs, then each kernel alone, then {@code reps} eager and {@code reps}
     * replayed steps.
     */
    public static Report measure(ProgramRunner runner, Map<String, Tensor> bound, Map<String, Long> params, int reps)
            throws LaunchException {
        if (!(runner.launcher() instanceof DeviceTiming timing)) {
            throw new LaunchException("NOT_A_DEVICE", "the benchmark times kernels on a GPU; this runner uses " + runner.launcher().name());
        }
        return measure(runner, timing, bound, params, reps);
    }

    /** {@link #measure(ProgramRunner, Map, Map, int)} with the timer and device figures of {@code timing}. */
    public static Report measure(ProgramRunner runner, DeviceTiming timing, Map<String, Tensor> bound, Map<String, Long> params, int reps)
            throws LaunchException {
        if (reps < 1) {
            throw new LaunchException("BENCH_REPS", "the benchmark needs at least one repetition, not " + reps);
        }
        RunResult warm = runner.step(bound, params, false, true);
        if (!warm.ok()) {
            throw new LaunchException("BENCH_FAULTED", "the step to benchmark faults: " + warm.faults().getFirst().message());
        }
        Launcher l = runner.launcher();
        Program p = runner.lowered().program();
        List<Kernel> kernels = runner.lowered().kernels();
        long l2 = timing.l2CacheBytes();
        long[] chipBytes = runner.lowered().memory().allChipBytes();
        long copyBytes = 0;
        for (long b : chipBytes) {
            copyBytes += b;
        }
        long[][] copies = copiesOfTheChips(runner, chipBytes, copies(l2, copyBytes));
        List<KernelTime> times = new ArrayList<>();
        String faulted;
        try {
            long next = 0;
            for (int i = 0; i < kernels.size(); i++) {
                Kernel k = kernels.get(i);
                long[][] args = new long[reps][];
                for (int r = 0; r < reps; r++, next++) {
                    args[r] = runner.arguments(k.threads(), copies[(int) (next % copies.length)]);
                }
                double micros = timeAlone(l, timing, runner.kernelNumber(i), k.threads(), args) * 1000.0 / reps;
                long bytes = bytes(p, p.stages().get(k.stageIndex()));
                // the graph's reps launches are replayed twice (untimed, then timed) over the same copies: between
                // two uses of one copy come min(reps, copies) - 1 other launches, whose bytes must fill the L2
                boolean beyondL2 = (Math.min(reps, copies.length) - 1) * (double) bytes >= l2;
                times.add(new KernelTime(k.stageId(), k.name(), bytes, micros, micros > 0 ? bytes / (micros * 1e-6) / 1e9 : 0, beyondL2));
            }
            faulted = faultedStage(runner, p);
        } finally {
            for (long[] c : copies) {
                for (long base : c) {
                    l.free(base);
                }
            }
        }
        float eager = timing.time(() -> {
            for (int s = 0; s < reps; s++) {
                for (int i = 0; i < kernels.size(); i++) {
                    runner.launch(i);
                }
            }
        });
        SegmentGraphs g = runner.graphs();
        float graphs = timing.time(() -> {
            for (int s = 0; s < reps; s++) {
                g.run(runner, true);
            }
        });
        return new Report(timing.device(), timing.peakBandwidthGBs(), l2, p.stages().size(), reps, copies.length, copyBytes, times,
                eager / reps, graphs / reps, faulted);
    }

    /** {@code n} copies of the runner's chip allocations, each holding what the chips hold now. */
    private static long[][] copiesOfTheChips(ProgramRunner runner, long[] chipBytes, int n) throws LaunchException {
        Launcher l = runner.launcher();
        long[][] copies = new long[n][chipBytes.length];
        try (Arena a = Arena.ofConfined()) {
            for (int c = 0; c < chipBytes.length; c++) {
                MemorySegment now = a.allocate(chipBytes[c]);
                l.download(runner.chipBase(c), now, chipBytes[c]);
                for (int r = 0; r < n; r++) {
                    copies[r][c] = l.alloc(chipBytes[c]);
                    l.upload(copies[r][c], now, chipBytes[c]);
                }
            }
        }
        return copies;
    }

    /**
     * Milliseconds of one replay of a graph holding one launch of {@code kernel} per argument
     * set in {@code args}; the graph is replayed once untimed first (a first launch uploads it).
     */
    private static float timeAlone(Launcher l, DeviceTiming timing, int kernel, long threads, long[][] args) throws LaunchException {
        l.beginCapture();
        Launcher.Graph graph;
        try {
            for (long[] a : args) {
                l.launch(kernel, threads, a, Launcher.Lane.MAIN);
            }
        } finally {
            graph = l.endCapture();
        }
        try {
            l.replay(graph);
            return timing.time(() -> l.replay(graph));
        } finally {
            l.destroy(graph);
        }
    }

    /** The stage named by the fault record, or null when it is clear. */
    private static String faultedStage(ProgramRunner runner, Program p) throws LaunchException {
        long[] f = runner.faultRecord();
        return f == null ? null : p.stages().get((int) f[0] - 1).id();
    }

    /** The report as text: the slowest kernels with their share of peak, then the kernels' time against eager and replayed steps. */
    public static String text(Report r, int top) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("device %s, peak DRAM bandwidth %.0f GB/s, L2 %.1f MB, %d stages%n", r.device(), r.peakGBs(),
                r.l2Bytes() / 1e6, r.stages()));
        sb.append(String.format("each kernel: a graph of %d launches replayed between two events, rotating over %d copies of %.1f MB"
                + " (%.1f MB in all)%n", r.launchesPerKernel(), r.copies(), r.copyBytes() / 1e6, r.copies() * (double) r.copyBytes() / 1e6));
        if (r.faultedStage() != null) {
            sb.append("warning: stage '").append(r.faultedStage()).append("' recorded a data fault while kernels were timed:"
                    + " the kernels after it returned at once and their times are not theirs\n");
        }
        List<KernelTime> sorted = new ArrayList<>(r.kernels());
        sorted.sort((a, b) -> Double.compare(b.micros(), a.micros()));
        sb.append(String.format("%-40s %12s %10s %10s %8s%n", "kernel", "bytes", "us", "GB/s", "of peak"));
        for (KernelTime k : sorted.subList(0, Math.min(top, sorted.size()))) {
            sb.append(String.format("%-40s %12d %10.2f %10.1f %7.1f%%%s%n", k.kernel(), k.bytes(), k.micros(), k.gbPerSecond(),
                    100 * k.gbPerSecond() / r.peakGBs(), k.beyondL2() ? "" : " l2"));
        }
        sb.append(String.format("kernels alone %.3f ms per step (%d kernels); step eager %.3f ms (%.2fx the kernels alone),"
                + " graphs %.3f ms (%.2fx)%n", r.kernelMs(), r.kernels().size(), r.eagerMs(), r.ratioToKernels(r.eagerMs()), r.graphMs(),
                r.ratioToKernels(r.graphMs())));
        sb.append(String.format("launch overhead per kernel: eager %s, graphs %s (%s)%n", Report.overheadText(r.eagerOverheadMicros()),
                Report.overheadText(r.graphOverheadMicros()), r.savedText()));
        return sb.toString();
    }
}
