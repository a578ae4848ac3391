package org.stagecheck.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.author.Weights;
import org.stagecheck.backend.RunResult;
import org.stagecheck.backend.Prepared;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.interp.bench.MatvecBench;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.Npy;

/**
 * The measurement behind {@code stagecheck bench decode}: an authored decode step run token after
 * token on the interpreter (KV cache carried), then the same step in numpy on the same weights
 * and tokens ({@code decode_numpy.py}, run with {@code python3} when it and numpy are there), and
 * a 1 x K x N f32 matvec through the interpreter's kernel and numpy's on the same data. Wall time
 * per token, and the calling thread's CPU time (steadier on a shared machine).
 */
final class DecodeBench {
    private static final int WARMUP = 2;

    record Samples(List<Double> wallMs, List<Double> cpuMs) {
        double mean() {
            return wallMs.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
        }

        double best() {
            return wallMs.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
        }

        double cpuMean() {
            return cpuMs.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
        }
    }

    private DecodeBench() {
    }

    /** The report, or (when the step faulted) the fault and no report. */
    record Outcome(String report, String fault) {}

    /** Runs the bench; the report is text, one figure per line. */
    static Outcome run(ModelSpec m, AuthorOutcome.Authored a, int ctx, int steps, int tp, int threads, int matvecSize) {
        StringWriter text = new StringWriter();
        PrintWriter out = new PrintWriter(text);
        var mx = ManagementFactory.getThreadMXBean();
        Map<String, Tensor> bound = new LinkedHashMap<>(a.bound());
        Prepared step = Backends.reference(RunOptions.defaults().withThreads(threads)).prepare(a.program());
        // the KV caches are handed to each run (donated), which updates them in place as numpy's step does
        Set<String> states = new HashSet<>();
        for (TensorDecl t : a.program().tensors()) {
            if (t.role() == TensorRole.STATE) {
                states.add(t.name());
                bound.put(t.name(), bound.get(t.name()).copy());
            }
        }
        List<Double> wall = new ArrayList<>();
        List<Double> cpu = new ArrayList<>();
        List<Integer> fed = new ArrayList<>();
        List<Integer> next = new ArrayList<>();
        int jitRuns = warmUpJit(step, a, bound, steps + WARMUP);
        long allocated = 0;
        int token = 1;
        for (int pos = 0; pos < steps + WARMUP; pos++) {
            for (TensorDecl t : a.program().tensors()) {
                if (t.name().startsWith("tokens") && t.role() == TensorRole.INPUT) {
                    bound.put(t.name(), Tensor.fromInts(t.shape(), new int[] {token}));
                }
            }
            fed.add(token);
            long b0 = allocatedBytes(mx);
            long c0 = mx.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            RunResult r = step.run(bound, Map.of("pos", (long) pos), false, states);
            long t1 = System.nanoTime();
            long c1 = mx.getCurrentThreadCpuTime();
            long b1 = allocatedBytes(mx);
            if (!r.ok()) {
                return new Outcome(null, r.faults().getFirst().render());
            }
            for (TensorDecl t : a.program().tensors()) {
                if (t.role() == TensorRole.STATE) {
                    bound.put(t.name(), r.tensors().get(t.name()));
                }
            }
            token = r.tensor("next_token").getInt(0);
            next.add(token);
            if (pos >= WARMUP) {
                wall.add((t1 - t0) / 1e6);
                cpu.add((c1 - c0) / 1e6);
                allocated += b1 - b0;
            }
        }
        Samples java = new Samples(wall, cpu);
        int stages = a.program().stages().size();
        out.printf(Locale.ROOT, "%s decode, ctx %d, tp %d, %d threads: %d stages; %d tokens timed after %d warm-up; KV caches donated to each run (updated in place); JVM transparent huge pages %s%n",
                m.name(), ctx, tp, threads, stages, steps, WARMUP, hugePages());
        out.printf(Locale.ROOT, "  stagecheck: mean %.2f ms/token, best %.2f ms/token (mean/best %.2f), calling-thread CPU %.2f ms/token; %.2f us per stage%n",
                java.mean(), java.best(), java.mean() / java.best(), java.cpuMean(), 1000 * java.mean() / stages);
        out.printf(Locale.ROOT, "  stagecheck: %.1f KB allocated per token by the calling thread; %d untimed runs of the step first (JIT warm-up, until a batch of 50 was no longer faster)%n",
                allocated / 1024.0 / steps, jitRuns);
        float[] x = new float[matvecSize];
        Tensor w = matvecWeight(matvecSize, x);
        double javaMatvec = MatvecBench.bestMs(x, w, threads);
        // the same weights rounded to bf16: half the bytes, widened in registers
        double javaMatvecBf16 = MatvecBench.bestMs(x, Tensor.fromFloats(DType.BF16, w.shape(), w.rawFloats()), threads);
        StringBuilder why = new StringBuilder();
        Numpy np = numpy(m, ctx, fed, w, x, threads, why);
        if (np == null) {
            out.printf(Locale.ROOT, "  numpy: not measured (%s)%n", why.isEmpty() ? "python3 with numpy was not found" : why);
            out.printf(Locale.ROOT, "  matvec 1x%dx%d f32: stagecheck %.2f ms; bf16 weights: stagecheck %.2f ms%n", matvecSize,
                    matvecSize, javaMatvec, javaMatvecBf16);
        } else {
            int agree = 0;
            for (int i = 0; i < next.size(); i++) {
                agree += next.get(i).equals(np.next().get(i)) ? 1 : 0;
            }
            Samples n = np.samples();
            out.printf(Locale.ROOT, "  numpy %s, same weights and tokens: mean %.2f ms/token, best %.2f ms/token, thread CPU %.2f ms/token; same next token on %d of %d steps%n",
                    np.version(), n.mean(), n.best(), n.cpuMean(), agree, next.size());
            out.printf(Locale.ROOT, "  stagecheck / numpy: %.2fx (mean), %.2fx (best), %.2fx (thread CPU; target 1.5x); staging overhead (stagecheck - numpy) %.2f us per stage%n",
                    java.mean() / n.mean(), java.best() / n.best(), java.cpuMean() / n.cpuMean(),
                    1000 * (java.mean() - n.mean()) / stages);
            out.printf(Locale.ROOT, "  matvec 1x%dx%d f32: stagecheck %.2f ms, numpy %.2f ms (numpy / stagecheck %.2f; target 0.8); bf16 weights: stagecheck %.2f ms (numpy f32 / stagecheck bf16 %.2f)%n",
                    matvecSize, matvecSize, javaMatvec, np.matvecMs(), np.matvecMs() / javaMatvec, javaMatvecBf16,
                    np.matvecMs() / javaMatvecBf16);
        }
        out.flush();
        return new Outcome(text.toString(), null);
    }

    /**
     * Runs the step from its initial state at the positions the timed tokens take, results discarded, so that the JIT has
     * compiled the evaluator before the timed tokens (which otherwise measure the JVM's bytecode
     * interpreter and its first compilations; the Vector API kernels are many times slower until
     * the optimising compiler has compiled them, which on a busy machine can take seconds): in
     * batches of {@code JIT_WARMUP_BATCH} runs, at least {@code JIT_WARMUP_RUNS} runs and 3 s, and until a
     * batch is no longer 3% faster than the fastest before it, or for at most
     * {@code JIT_WARMUP_NANOS}; returns how many ran.
     */
    private static int warmUpJit(Prepared step, AuthorOutcome.Authored a, Map<String, Tensor> bound, int positions) {
        Map<String, Tensor> first = new LinkedHashMap<>(bound);
        for (TensorDecl t : a.program().tensors()) {
            if (t.name().startsWith("tokens") && t.role() == TensorRole.INPUT) {
                first.put(t.name(), Tensor.fromInts(t.shape(), new int[] {1}));
            }
        }
        long start = System.nanoTime();
        int runs = 0;
        long fastestBatch = Long.MAX_VALUE;
        while (System.nanoTime() - start < JIT_WARMUP_NANOS) {
            long b0 = System.nanoTime();
            int done = 0;
            // the time limit holds inside a batch too: a model whose step takes a second would
            // otherwise run a whole batch of 50 past it
            while (done < JIT_WARMUP_BATCH && System.nanoTime() - start < JIT_WARMUP_NANOS) {
                // the positions the timed tokens take, so that the JIT's profile is theirs
                step.run(first, Map.of("pos", (long) ((runs + done) % positions)));
                done++;
            }
            long batch = System.nanoTime() - b0;
            runs += done;
            if (done < JIT_WARMUP_BATCH) {
                break;
            }
            boolean improving = batch < fastestBatch * 0.97;
            fastestBatch = Math.min(fastestBatch, batch);
            if (runs >= JIT_WARMUP_RUNS && System.nanoTime() - start >= JIT_WARMUP_MIN_NANOS && !improving) {
                break;
            }
        }
        return runs;
    }

    private static final int JIT_WARMUP_RUNS = 300;
    private static final int JIT_WARMUP_BATCH = 50;
    /** The compiler threads may still be compiling after the runs stop getting faster: at least this long. */
    private static final long JIT_WARMUP_MIN_NANOS = 3_000_000_000L;
    private static final long JIT_WARMUP_NANOS = 30_000_000_000L;

    /**
     * Whether the JVM asked for transparent huge pages ({@code bin/stagecheck} does where the
     * kernel offers them; numpy does for its large arrays): "on", "off" or "unknown".
     */
    private static String hugePages() {
        try {
            var hs = ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
            return hs == null ? "unknown" : "true".equals(hs.getVMOption("UseTransparentHugePages").getValue()) ? "on" : "off";
        } catch (IllegalArgumentException e) {
            return "unknown";
        }
    }

    /** Bytes the calling thread has allocated so far, or 0 where the JVM does not count them. */
    private static long allocatedBytes(java.lang.management.ThreadMXBean mx) {
        return mx instanceof com.sun.management.ThreadMXBean sun && sun.isThreadAllocatedMemorySupported()
                ? sun.getCurrentThreadAllocatedBytes() : 0;
    }

    private static Tensor matvecWeight(int size, float[] x) {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(42);
        float[] w = new float[size * size];
        for (int i = 0; i < w.length; i++) {
            w[i] = (float) (rnd.nextDouble() * 2 - 1);
        }
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) (rnd.nextDouble() * 2 - 1);
        }
        return Tensor.fromFloats(DType.F32, Shape.of(size, size), w);
    }

    record Numpy(String version, Samples samples, List<Integer> next, double matvecMs) {}

    /** The numpy baseline, or null when python3 or numpy is missing (or it failed: why is appended to {@code why}). */
    private static Numpy numpy(ModelSpec m, int ctx, List<Integer> tokens, Tensor matvecW, float[] matvecX, int threads,
                               StringBuilder why) {
        Path dir = null;
        try {
            dir = Files.createTempDirectory("stagecheck-bench-");
            for (Map.Entry<String, Tensor> e : Weights.all(m, ctx, DType.F32).entrySet()) {
                Npy.write(dir.resolve(e.getKey() + ".npy"), e.getValue());
            }
            Npy.write(dir.resolve("matvec_w.npy"), matvecW);
            Npy.write(dir.resolve("matvec_x.npy"), Tensor.fromFloats(DType.F32, Shape.of(matvecX.length), matvecX));
            Path script = dir.resolve("decode_numpy.py");
            try (InputStream in = DecodeBench.class.getResourceAsStream("decode_numpy.py")) {
                Files.write(script, in.readAllBytes());
            }
            String config = String.format(Locale.ROOT,
                    "{\"hidden\":%d,\"layers\":%d,\"heads\":%d,\"kvHeads\":%d,\"headDim\":%d,\"normEps\":%s,\"ctx\":%d}",
                    m.hidden(), m.layers(), m.heads(), m.kvHeads(), m.headDim(), Double.toString(m.normEps()), ctx);
            List<String> csv = tokens.stream().map(String::valueOf).toList();
            ProcessBuilder pb = new ProcessBuilder("python3", script.toString(), dir.toString(), config, String.join(",", csv),
                    Integer.toString(WARMUP)).redirectErrorStream(true);
            // numpy's BLAS gets as many threads as the interpreter
            pb.environment().put("OPENBLAS_NUM_THREADS", Integer.toString(threads));
            pb.environment().put("OMP_NUM_THREADS", Integer.toString(threads));
            Process p = pb.start();
            String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
                why.append("the numpy baseline failed: ").append(text.strip().lines().reduce((f, s) -> s).orElse(""));
                return null;
            }
            return parse(text.strip().lines().reduce((f, s) -> s).orElse("{}"));
        } catch (IOException e) {
            why.append("python3 could not be run: ").append(e.getMessage());
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } finally {
            deleteQuietly(dir);
        }
    }

    private static Numpy parse(String json) throws IOException {
        var node = new com.fasterxml.jackson.databind.ObjectMapper().readTree(json);
        List<Double> wall = new ArrayList<>();
        List<Double> cpu = new ArrayList<>();
        List<Integer> next = new ArrayList<>();
        node.get("wall").forEach(v -> wall.add(v.asDouble() * 1000));
        node.get("cpu").forEach(v -> cpu.add(v.asDouble() * 1000));
        node.get("next").forEach(v -> next.add(v.asInt()));
        double matvec = node.has("matvec") ? node.get("matvec").get(0).asDouble() * 1000 : Double.NaN;
        return new Numpy(node.get("numpy").asText(), new Samples(wall, cpu), next, matvec);
    }

    private static void deleteQuietly(Path dir) {
        if (dir == null) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory left behind is harmless
        }
    }
}
