package org.stagecheck.cuda.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.stagecheck.cuda.lower.Kernel;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.tensor.Tensor;

/**
 * The GPU benchmark of a step (bin/gpu-check; docs/cuda.md): each kernel timed alone with CUDA
 * events, its bandwidth from the bytes its stage reads and writes, against the device's peak; and
 * the time of a whole step eager (one launch per kernel) and replayed from graphs, whose
 * difference per stage is the launch overhead graphs remove. Needs a {@link DriverLauncher}.
 */
public final class DeviceBench {
    private DeviceBench() {
    }

    /** One kernel's figure. */
    public record KernelTime(String stageId, String kernel, long bytes, double micros, double gbPerSecond) {}

    /** The figures of one program. */
    public record Report(String device, double peakGBs, int stages, List<KernelTime> kernels, double eagerMs, double graphMs) {
        /** Launch overhead per stage that graphs remove, in microseconds. */
        public double savedMicrosPerStage() {
            return (eagerMs - graphMs) * 1000 / stages;
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

    /**
     * Measures {@code runner} (on a device launcher): one warm-up step with graphs, then each kernel
     * timed alone, then {@code steps} eager and {@code steps} replayed steps.
     */
    public static Report measure(ProgramRunner runner, Map<String, Tensor> bound, Map<String, Long> params, int steps)
            throws LaunchException {
        if (!(runner.launcher() instanceof DriverLauncher d)) {
            throw new LaunchException("NOT_A_DEVICE", "the benchmark times kernels on a GPU; this runner uses " + runner.launcher().name());
        }
        runner.step(bound, params, false, true);
        Program p = runner.lowered().program();
        List<Kernel> kernels = runner.lowered().kernels();
        double peak = d.peakBandwidthGBs();
        List<KernelTime> times = new ArrayList<>();
        for (int i = 0; i < kernels.size(); i++) {
            int k = i;
            d.time(() -> runner.launch(k));
            float ms = d.time(() -> {
                for (int r = 0; r < 10; r++) {
                    runner.launch(k);
                }
            }) / 10;
            Kernel kn = kernels.get(i);
            long bytes = bytes(p, p.stages().get(kn.stageIndex()));
            times.add(new KernelTime(kn.stageId(), kn.name(), bytes, ms * 1000, ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0));
        }
        float eager = d.time(() -> {
            for (int s = 0; s < steps; s++) {
                for (int i = 0; i < kernels.size(); i++) {
                    runner.launch(i);
                }
            }
        });
        SegmentGraphs g = runner.graphs();
        float graphs = d.time(() -> {
            for (int s = 0; s < steps; s++) {
                g.run(runner, true);
            }
        });
        return new Report(d.device(), peak, p.stages().size(), times, eager / steps, graphs / steps);
    }

    /** The report as text: the slowest kernels with their share of peak, then eager vs graphs. */
    public static String text(Report r, int top) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("device %s, peak DRAM bandwidth %.0f GB/s, %d stages%n", r.device(), r.peakGBs(), r.stages()));
        List<KernelTime> sorted = new ArrayList<>(r.kernels());
        sorted.sort((a, b) -> Double.compare(b.micros(), a.micros()));
        sb.append(String.format("%-40s %12s %10s %10s %8s%n", "kernel", "bytes", "us", "GB/s", "of peak"));
        for (KernelTime k : sorted.subList(0, Math.min(top, sorted.size()))) {
            sb.append(String.format("%-40s %12d %10.2f %10.1f %7.1f%%%n", k.kernel(), k.bytes(), k.micros(), k.gbPerSecond(),
                    100 * k.gbPerSecond() / r.peakGBs()));
        }
        sb.append(String.format("step: eager %.3f ms, graphs %.3f ms: %.2f us per stage saved by replay%n", r.eagerMs(), r.graphMs(),
                r.savedMicrosPerStage()));
        return sb.toString();
    }
}
