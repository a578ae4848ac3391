package org.stagecheck.interp.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.backend.RunResult;
import org.stagecheck.interp.eval.MatMulKernel;
import org.stagecheck.interp.eval.Parallel;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Machine;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;

/**
 * The evaluator's speed on the matvec/matmul of a transformer layer (see
 * docs/bench.md): GFLOP/s and effective GB/s of the MatMul kernel and of a whole program run,
 * for f32 and bf16 weights, next to a STREAM-like copy bandwidth and, when given, a baseline
 * (ND4J) measured in the same process.
 */
public final class EvaluatorBench {
    private EvaluatorBench() {
    }

    /** {@code --size N --rows M --threads T --repeats R}; prints the table (no baseline). */
    public static void main(String[] args) {
        BenchOptions o = BenchOptions.defaults();
        int size = o.size();
        int rows = o.rows();
        int threads = o.threads();
        int repeats = o.repeats();
        for (int i = 0; i + 1 < args.length; i += 2) {
            int v = Integer.parseInt(args[i + 1]);
            switch (args[i]) {
                case "--size" -> size = v;
                case "--rows" -> rows = v;
                case "--threads" -> threads = v;
                case "--repeats" -> repeats = v;
                default -> {
                    System.err.println("usage: EvaluatorBench [--size N] [--rows M] [--threads T] [--repeats R]");
                    System.exit(2);
                }
            }
        }
        System.out.print(run(new BenchOptions(size, rows, threads, repeats, null)).toTable());
    }

    public static BenchReport run(BenchOptions o) {
        double copy = streamCopyGBs(o.threads(), o.repeats());
        List<BenchReport.Row> rows = new ArrayList<>();
        Random rnd = new Random(1);
        int k = o.size();
        int n = o.size();
        float[] w = new float[k * n];
        for (int i = 0; i < w.length; i++) {
            w[i] = (float) rnd.nextGaussian() * 0.02f;
        }
        for (int m : new int[] {1, o.rows()}) {
            float[] a = new float[m * k];
            for (int i = 0; i < a.length; i++) {
                a[i] = (float) rnd.nextGaussian();
            }
            double base = Double.NaN;
            if (o.baseline() != null) {
                double s = o.baseline().matmulSeconds(a, w, m, k, n, o.repeats());
                base = 2.0 * m * k * n / s / 1e9;
            }
            for (DType wd : new DType[] {DType.F32, DType.BF16}) {
                Tensor wt = Tensor.fromFloats(wd, Shape.of(k, n), w);
                Tensor at = Tensor.fromFloats(DType.F32, Shape.of(m, k), a);
                double kernel = kernelSeconds(at, wt, m, k, n, o);
                double run = runSeconds(at, wt, m, k, n, o);
                double bytes = (double) k * n * wd.byteSize() + 4.0 * m * k + 4.0 * m * n;
                rows.add(new BenchReport.Row(m == 1 ? "matvec" : "matmul", m, k, n, wd.jsonName(), kernel, run,
                        2.0 * m * k * n / kernel / 1e9, bytes / kernel / 1e9,
                        o.baseline() == null ? "-" : o.baseline().name() + " f32", base));
            }
        }
        String machine = Runtime.getRuntime().availableProcessors() + " cpus, " + o.threads() + " threads, java "
                + Runtime.version() + ", " + System.getProperty("os.arch") + ", kernel " + MatMulKernel.implementation();
        return new BenchReport(machine, copy, rows);
    }

    private static double kernelSeconds(Tensor a, Tensor w, int m, int k, int n, BenchOptions o) {
        float[] av = a.rawFloats();
        double best = Double.MAX_VALUE;
        try (Parallel par = new Parallel(o.threads())) {
            for (int r = 0; r <= o.repeats(); r++) {
                float[] acc = new float[m * n];
                long t0 = System.nanoTime();
                MatMulKernel.multiply(av, w, 0, false, acc, m, k, n, par);
                double s = (System.nanoTime() - t0) / 1e9;
                if (r > 0) {
                    best = Math.min(best, s);
                }
            }
        }
        return best;
    }

    /** The whole program: load x, load W, MatMul, through {@link Interpreter#run}. */
    private static double runSeconds(Tensor a, Tensor w, int m, int k, int n, BenchOptions o) {
        Site core = Site.of(0, 0, 0);
        Program p = new Program("bench", new Machine(1, 1, 1), List.of(),
                List.of(new TensorDecl("x", DType.F32, a.shape(), 0, TensorRole.INPUT),
                        new TensorDecl("w", w.dtype(), w.shape(), 0, TensorRole.WEIGHT)),
                List.of(new BufferDecl("X", DType.F32, a.shape(), core), new BufferDecl("W", w.dtype(), w.shape(), core),
                        new BufferDecl("Y", DType.F32, Shape.of(m, n), core)),
                List.of(),
                List.of(new Stage("lx", core, List.of(), List.of("X"), new StageKind.Load("x",
                                new AccessPattern.Block(List.of(Offset.constant(0), Offset.constant(0)), a.shape()), 1, null)),
                        new Stage("lw", core, List.of(), List.of("W"), new StageKind.Load("w",
                                new AccessPattern.Block(List.of(Offset.constant(0), Offset.constant(0)), w.shape()), 1, null)),
                        new Stage("mm", core, List.of("X", "W"), List.of("Y"), new StageKind.Compute(ComputeOp.MatMul.plain()))));
        Interpreter interp = new Interpreter(RunOptions.defaults().withThreads(o.threads()));
        double best = Double.MAX_VALUE;
        for (int r = 0; r <= o.repeats(); r++) {
            long t0 = System.nanoTime();
            RunResult res = interp.run(p, Map.of("x", a, "w", w), Map.of());
            double s = (System.nanoTime() - t0) / 1e9;
            if (!res.ok()) {
                throw new IllegalStateException("the bench program faulted: " + res.faults());
            }
            if (r > 0) {
                best = Math.min(best, s);
            }
        }
        return best;
    }

    /** Bytes read plus bytes written per second copying 2 x 128 MiB float arrays, split over threads. */
    static double streamCopyGBs(int threads, int repeats) {
        int n = 32 << 20;
        float[] src = new float[n];
        float[] dst = new float[n];
        java.util.Arrays.fill(src, 1f);
        double best = Double.MAX_VALUE;
        try (Parallel par = new Parallel(threads)) {
            for (int r = 0; r <= repeats; r++) {
                List<Runnable> tasks = new ArrayList<>();
                int chunk = (n + threads - 1) / threads;
                for (int t = 0; t < threads; t++) {
                    int lo = t * chunk;
                    int len = Math.min(n, lo + chunk) - lo;
                    tasks.add(() -> System.arraycopy(src, lo, dst, lo, len));
                }
                long t0 = System.nanoTime();
                par.runAll(tasks);
                double s = (System.nanoTime() - t0) / 1e9;
                if (r > 0) {
                    best = Math.min(best, s);
                }
            }
        }
        return 2.0 * 4 * n / best / 1e9;
    }
}
