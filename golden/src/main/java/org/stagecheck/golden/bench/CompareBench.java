package org.stagecheck.golden.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

import org.stagecheck.tensor.compare.Operand;
import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.tensor.npy.TensorFileException;

/**
 * The comparison bench (docs/bench.md, "Comparison"): two f32 tensor sets of the given size
 * written as .npy files ({@link BenchData}: the actual set a copy of the expected with every
 * seventh element one ULP up, and a tolerance file of four ULPs per element), compared the way
 * {@code golden check} compares files (streamed range by range, heat map included) under
 * {@code allclose} (f32 defaults) and {@code derived}; and, on the same files in the same run,
 * numpy's {@code np.allclose} and the numpy form of the derived test on the arrays mapped into
 * memory ({@link NumpyRun}), its passes alternating with stagecheck's. GB/s counts the bytes of
 * the two sets. The files are deleted at the end, also when the run is interrupted. The heap it
 * needs does not grow with the size: the data is never whole in memory.
 */
public final class CompareBench {
    /** The heat map's side, as golden check makes it. */
    private static final int HEAT_MAP_SIDE = 256;

    /**
     * One measured line: the best pass's wall seconds and the CPU seconds of that pass (all
     * threads; numpy computes on one), and {@code vsAllclose}, numpy's np.allclose seconds over
     * this line's (above 1: faster), NaN without numpy.
     */
    public record Row(String engine, String policy, double seconds, double cpuSeconds, double gbPerSecond, boolean passed, double vsAllclose) {}

    /**
     * All lines, with a note on numpy (its version, or why it was not measured), the JVM's heap
     * limit (-Xmx), the most of it in use (the sum of the heap pools' peaks), the JVM's peak
     * resident memory (-1 where /proc does not say), and the bench's wall time.
     */
    public record Result(long bytesPerSet, int tensors, int repeats, List<Row> rows, String numpy,
                         long maxHeap, long peakHeap, long peakResident, double wallSeconds) {}

    private CompareBench() {
    }

    /** Bytes the bench writes into its work directory (and deletes) for sets of {@code bytesPerSet} in {@code tensors} tensors. */
    public static long bytesOnDisk(long bytesPerSet, int tensors) {
        return BenchData.bytesOnDisk(tensors, elements(bytesPerSet, tensors));
    }

    private static int elements(long bytesPerSet, int tensors) {
        return Math.toIntExact(bytesPerSet / 4 / tensors);
    }

    /**
     * Runs the bench in a new directory under {@code work}, deleted at the end (and by a shutdown
     * hook if the JVM is stopped first); progress lines go to {@code progress}. stagecheck's
     * passes and numpy's alternate (a warm-up pass each, then {@code repeats} timed rounds), so
     * that a load that comes and goes on a shared machine slows both alike; each line is the best
     * of its timed passes.
     *
     * @throws IOException when the data cannot be written or read back
     */
    public static Result run(long bytesPerSet, int tensors, int repeats, Path work, boolean withNumpy, Progress progress)
            throws IOException {
        long start = System.nanoTime();
        List<MemoryPoolMXBean> heap = ManagementFactory.getMemoryPoolMXBeans().stream().filter(p -> p.getType() == MemoryType.HEAP).toList();
        heap.forEach(MemoryPoolMXBean::resetPeakUsage);
        int n = elements(bytesPerSet, tensors);
        Path dir = Files.createTempDirectory(work, "stagecheck-compare-bench-");
        Thread cleanup = new Thread(() -> deleteQuietly(dir), "compare-bench-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
        try {
            progress.phase(String.format(Locale.ROOT, "writing %.2f GiB of .npy files (expected, actual, tolerance) to %s",
                    bytesOnDisk(bytesPerSet, tensors) / (double) (1L << 30), dir), 3L * 4 * n * tensors);
            BenchData.Files files = BenchData.write(dir, tensors, n, progress);
            long bytes = 2L * files.bytesPerFile() * tensors;
            String[] why = {"numpy not measured (--no-numpy)"};
            Best[] best = {new Best(), new Best(), new Best(), new Best()};
            try (NumpyRun np = withNumpy ? NumpyRun.start(files, why) : null) {
                Policy[] policies = {Policy.AllClose.defaults(DType.F32), new Policy.Derived(1)};
                NumpyRun.Test[] tests = {NumpyRun.Test.ALLCLOSE, NumpyRun.Test.DERIVED};
                for (int r = 0; r <= repeats; r++) {
                    String round = r == 0 ? "warm-up" : "round " + r + " of " + repeats;
                    for (int k = 0; k < 2; k++) {
                        progress.phase(round + ": stagecheck " + policies[k].spelling(), tensors);
                        NumpyRun.Pass s = stagecheck(policies[k], files, k == 1, progress);
                        if (r > 0) {
                            best[k].add(s);
                        }
                        if (np != null) {
                            progress.phase(round + ": numpy " + tests[k].spelling, 0);
                            NumpyRun.Pass p = np.pass(tests[k]);
                            if (r > 0) {
                                best[2 + k].add(p);
                            }
                        }
                    }
                }
                if (np != null) {
                    why[0] = np.version();
                }
            }
            List<Row> rows = new ArrayList<>();
            double ref = best[2].seconds;   // NaN without numpy
            rows.add(best[0].row("stagecheck", Policy.AllClose.defaults(DType.F32).spelling(), bytes, ref));
            rows.add(best[1].row("stagecheck", new Policy.Derived(1).spelling(), bytes, ref));
            if (!Double.isNaN(ref)) {
                rows.add(best[2].row("numpy", NumpyRun.Test.ALLCLOSE.spelling, bytes, ref));
                rows.add(best[3].row("numpy", NumpyRun.Test.DERIVED.spelling, bytes, ref));
            }
            progress.phase("done; deleting " + dir, 0);
            long peak = heap.stream().mapToLong(p -> p.getPeakUsage().getUsed()).sum();
            return new Result(bytes / 2, tensors, repeats, rows, why[0], maxHeap(), peak, peakResident(), (System.nanoTime() - start) / 1e9);
        } finally {
            deleteQuietly(dir);
            try {
                Runtime.getRuntime().removeShutdownHook(cleanup);
            } catch (IllegalStateException shuttingDown) {
                // the JVM is already exiting: the hook deletes the directory as well
            }
        }
    }

    /** The fastest timed pass of one line so far. */
    private static final class Best {
        double seconds = Double.NaN;
        double cpuSeconds = Double.NaN;
        boolean passed = true;

        void add(NumpyRun.Pass p) {
            if (Double.isNaN(seconds) || p.seconds() < seconds) {
                seconds = p.seconds();
                cpuSeconds = p.cpuSeconds();
            }
            passed &= p.passed();
        }

        Row row(String engine, String policy, long bytes, double allclose) {
            return new Row(engine, policy, seconds, cpuSeconds, bytes / seconds / 1e9, passed, allclose / seconds);
        }
    }

    /** One pass comparing every tensor's files as golden check does (streamed, with a heat map): wall and process CPU seconds. */
    private static NumpyRun.Pass stagecheck(Policy p, BenchData.Files files, boolean withTolerance, Progress progress) throws IOException {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long c0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        boolean ok = true;
        for (int i = 0; i < files.expected().size(); i++) {
            try {
                Operand e = Operand.NpyFile.open(files.expected().get(i), DType.F32);
                Operand a = Operand.NpyFile.open(files.actual().get(i), DType.F32);
                Operand tol = withTolerance ? Operand.NpyFile.open(files.tolerance().get(i), DType.F32) : null;
                ok &= org.stagecheck.tensor.compare.Comparator.compare(e, a, p, tol, HEAT_MAP_SIDE).comparison().passed();
            } catch (TensorFileException x) {
                throw new IOException(x.getMessage(), x);
            }
            progress.advance(1);
        }
        return new NumpyRun.Pass((System.nanoTime() - t0) / 1e9, (os.getProcessCpuTime() - c0) / 1e9, ok);
    }

    /** This JVM's peak resident set (VmHWM of /proc/self/status), or -1 where there is none. */
    private static long peakResident() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) << 10;
                }
            }
        } catch (IOException | NumberFormatException | UnsupportedOperationException notLinux) {
            // no /proc: the figure is left out
        }
        return -1;
    }

    /** The heap limit the JVM was started with (-Xmx, or its default). */
    private static long maxHeap() {
        var hotspot = ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
        try {
            return Long.parseLong(hotspot.getVMOption("MaxHeapSize").getValue());
        } catch (IllegalArgumentException | NullPointerException notHotSpot) {
            return Runtime.getRuntime().maxMemory();
        }
    }

    private static void deleteQuietly(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path x : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(x);
            }
        } catch (IOException e) {
            // a file someone else removed or holds: nothing more to do for it
        }
    }

    /** A markdown table of the result, with a line saying what was measured and where. */
    public static String table(Result r) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "two f32 tensor sets of %.2f GiB each (%d tensors) in .npy files, best of %d alternating rounds after a warm-up; "
                        + "%s; %d cpus; JVM heap limit %d MiB, at most %d MiB of it in use%s; %.0f s in all%n%n",
                r.bytesPerSet() / (double) (1L << 30), r.tensors(), r.repeats(), r.numpy(), Runtime.getRuntime().availableProcessors(),
                r.maxHeap() >> 20, r.peakHeap() >> 20, r.peakResident() < 0 ? "" : ", JVM peak resident memory " + (r.peakResident() >> 20) + " MiB",
                r.wallSeconds()));
        b.append("| engine | policy | seconds | CPU seconds | GB/s | x np.allclose | passed |\n| --- | --- | ---: | ---: | ---: | ---: | --- |\n");
        for (Row row : r.rows()) {
            b.append(String.format(Locale.ROOT, "| %s | %s | %.3f | %.3f | %.2f | %s | %s |%n", row.engine(), row.policy(), row.seconds(), row.cpuSeconds(),
                    row.gbPerSecond(), Double.isNaN(row.vsAllclose()) ? "-" : String.format(Locale.ROOT, "%.2f", row.vsAllclose()), row.passed()));
        }
        return b.toString();
    }
}
