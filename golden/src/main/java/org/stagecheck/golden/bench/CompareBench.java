package org.stagecheck.golden.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.stagecheck.golden.compare.Comparator;
import org.stagecheck.golden.compare.Comparison;
import org.stagecheck.golden.compare.Policy;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.Npy;

/**
 * The comparison bench (docs/golden.md, "Speed"): two f32 tensor sets of the given size (the
 * actual one a copy of the expected with every seventh element one ULP up), compared under
 * {@code allclose} (f32 defaults) and {@code derived} (a per-element f32 tolerance of four ULPs),
 * and, on the same data in the same run, numpy's {@code np.allclose} and the numpy expression of
 * the derived test ({@code np.all(np.abs(a - e) <= tol)}). GB/s counts the bytes of the two sets.
 */
public final class CompareBench {
    /** One measured line. */
    public record Row(String engine, String policy, double seconds, double gbPerSecond, boolean passed) {}

    /** All lines, with a note on numpy (its version, or why it was not measured). */
    public record Result(long bytesPerSet, int tensors, int repeats, List<Row> rows, String numpy) {}

    private CompareBench() {
    }

    public static Result run(long bytesPerSet, int tensors, int repeats, Path work, boolean withNumpy) throws IOException, InterruptedException {
        int n = Math.toIntExact(bytesPerSet / 4 / tensors);
        List<Tensor> expected = new ArrayList<>();
        List<Tensor> actual = new ArrayList<>();
        List<Tensor> tolerance = new ArrayList<>();
        for (int t = 0; t < tensors; t++) {
            float[] e = new float[n];
            float[] a = new float[n];
            float[] tol = new float[n];
            int seed = t;
            IntStream.range(0, (n + (1 << 20) - 1) >> 20).parallel().forEach(c -> {
                SplittableRandom r = new SplittableRandom(seed * 1_000_003L + c);
                for (int i = c << 20; i < Math.min(n, (c + 1) << 20); i++) {
                    float v = (float) (r.nextDouble() * 4 - 2);
                    e[i] = v;
                    a[i] = i % 7 == 0 ? Math.nextUp(v) : v;
                    tol[i] = 4 * Math.ulp(v);
                }
            });
            Shape shape = Shape.of(n / 1024, 1024);
            expected.add(Tensor.wrapFloats(Shape.of(n), e).reshaped(n % 1024 == 0 ? shape : Shape.of(n)));
            actual.add(Tensor.wrapFloats(Shape.of(n), a).reshaped(n % 1024 == 0 ? shape : Shape.of(n)));
            tolerance.add(Tensor.wrapFloats(Shape.of(n), tol).reshaped(n % 1024 == 0 ? shape : Shape.of(n)));
        }
        long bytes = 2L * 4 * n * tensors;
        List<Row> rows = new ArrayList<>();
        Policy allclose = Policy.AllClose.defaults(DType.F32);
        rows.add(time("stagecheck", allclose, expected, actual, null, repeats, bytes));
        rows.add(time("stagecheck", new Policy.Derived(1), expected, actual, tolerance, repeats, bytes));
        String note;
        if (!withNumpy) {
            note = "numpy not measured (--no-numpy)";
        } else {
            note = numpy(work, expected, actual, tolerance, repeats, bytes, rows);
        }
        return new Result(bytes / 2, tensors, repeats, rows, note);
    }

    private static Row time(String engine, Policy p, List<Tensor> e, List<Tensor> a, List<Tensor> tol, int repeats, long bytes) {
        double best = Double.POSITIVE_INFINITY;
        boolean passed = true;
        for (int r = 0; r < repeats + 1; r++) {
            long t0 = System.nanoTime();
            boolean ok = true;
            for (int i = 0; i < e.size(); i++) {
                Comparison c = Comparator.compare(e.get(i), a.get(i), p, tol == null ? null : tol.get(i));
                ok &= c.passed();
            }
            double s = (System.nanoTime() - t0) / 1e9;
            if (r > 0) {
                best = Math.min(best, s);   // the first pass warms the JIT up
            }
            passed = ok;
        }
        return new Row(engine, p.spelling(), best, bytes / best / 1e9, passed);
    }

    private static String numpy(Path work, List<Tensor> e, List<Tensor> a, List<Tensor> tol, int repeats, long bytes, List<Row> rows)
            throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory(work, "compare-bench");
        try {
            List<String> args = new ArrayList<>(List.of("python3", "-c", NUMPY_SCRIPT, Integer.toString(repeats)));
            for (int i = 0; i < e.size(); i++) {
                // expected, actual and tolerance files, in the order the script reads them
                for (Map.Entry<String, List<Tensor>> kind : List.of(Map.entry("e", e), Map.entry("a", a), Map.entry("t", tol))) {
                    Path f = dir.resolve(kind.getKey() + i + ".npy");
                    Npy.write(f, kind.getValue().get(i));
                    args.add(f.toString());
                }
            }
            Process p;
            try {
                p = new ProcessBuilder(args).redirectErrorStream(true).start();
            } catch (IOException ex) {
                return "numpy not measured: python3 was not found";
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0) {
                return "numpy not measured: " + (out.contains("No module named") ? "python3 has no numpy" : out.strip().lines().reduce((x, y) -> y).orElse("python3 failed"));
            }
            String version = "numpy";
            for (String line : out.strip().split("\n")) {
                String[] w = line.strip().split("\\s+");
                switch (w[0]) {
                    case "version" -> version = "numpy " + w[1];
                    case "allclose", "derived" -> {
                        double s = Double.parseDouble(w[1]);
                        rows.add(new Row("numpy", w[0].equals("allclose") ? "np.allclose(a, e, rtol=1.3e-06, atol=1e-05)" : "np.all(np.abs(a - e) <= tol)",
                                s, bytes / s / 1e9, w[2].equals("True")));
                    }
                    // other lines python prints (warnings) carry no figure
                    default -> { }
                }
            }
            return version;
        } finally {
            try (var s = Files.walk(dir)) {
                for (Path x : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(x);
                }
            }
        }
    }

    /** Best of N after one warm-up pass, on the files given as (expected, actual, tolerance) triples. */
    private static final String NUMPY_SCRIPT = String.join("\n",
            "import sys, time",
            "import numpy as np",
            "print('version', np.__version__)",
            "reps = int(sys.argv[1])",
            "f = sys.argv[2:]",
            "sets = [(np.load(f[i]), np.load(f[i + 1]), np.load(f[i + 2])) for i in range(0, len(f), 3)]",
            "def bench(test):",
            "    best = float('inf')",
            "    for r in range(reps + 1):",
            "        t0 = time.perf_counter()",
            "        ok = all([test(e, a, t) for e, a, t in sets])",
            "        s = time.perf_counter() - t0",
            "        if r > 0: best = min(best, s)",
            "    return best, ok",
            "s, ok = bench(lambda e, a, t: np.allclose(a, e, rtol=1.3e-06, atol=1e-05))",
            "print('allclose', s, ok)",
            "s, ok = bench(lambda e, a, t: bool(np.all(np.abs(a - e) <= t)))",
            "print('derived', s, ok)");

    /** A markdown table of the result. */
    public static String table(Result r) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "two f32 tensor sets of %.2f GiB each (%d tensors), best of %d after a warm-up; %s; %d cpus%n%n",
                r.bytesPerSet() / (double) (1L << 30), r.tensors(), r.repeats(), r.numpy(), Runtime.getRuntime().availableProcessors()));
        b.append("| engine | policy | seconds | GB/s | passed |\n| --- | --- | ---: | ---: | --- |\n");
        for (Row row : r.rows()) {
            b.append(String.format(Locale.ROOT, "| %s | %s | %.3f | %.2f | %s |%n", row.engine(), row.policy(), row.seconds(), row.gbPerSecond(), row.passed()));
        }
        return b.toString();
    }
}
