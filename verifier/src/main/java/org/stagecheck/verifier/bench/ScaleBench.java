package org.stagecheck.verifier.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Machine;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.spec.json.CertificateCodec;
import org.stagecheck.spec.json.CertificateFile;
import org.stagecheck.spec.json.JsonFormatException;
import org.stagecheck.spec.json.ProgramCodec;
import org.stagecheck.spec.json.ProgramFile;
import org.stagecheck.spec.validate.Validator;
import org.stagecheck.verifier.VerifyReport;
import org.stagecheck.verifier.Parent;
import org.stagecheck.verifier.Verifier;

/**
 * The verifier's scaling benchmark ({@code stagecheck bench verifier}, docs/bench.md "Verifier
 * scaling"): for every size and every {@link Shapes shape}, a generated program of exactly that
 * many stages is validated (the spec validator alone) and verified, both from memory and from
 * its JSON files (read, then checked), in the same JVM, and the table gives the times, the ratio
 * verifier / validator, the heap and the verdict. The same ns/stage at every size shows the
 * check is linear in the program. Run as {@code stagecheck bench verifier} or
 * {@code java -cp ... org.stagecheck.verifier.bench.ScaleBench [sizes...]}.
 *
 * <p>{@link #generate} is the {@code split} shape: {@code tp} chips; per layer, every chip loads
 * its row shard of a weight, multiplies (a partial), one sum all-reduce, every chip adds a bias
 * and feeds the next layer. Buffers and tensors are reused across layers, so memory grows with
 * the stage list only.
 */
public final class ScaleBench {
    private static final int TP = 2;
    private static final int WIDTH = 8;
    /** The stages of the warm-up programs (fewer when every size asked for is smaller). */
    private static final int WARM_UP_STAGES = 20_000;
    /**
     * Timed runs of each check per shape and size, after its first run: the table gives their
     * median (and the first run's verify time apart), as a benchmark harness reports the steady
     * state after warm-up iterations of the same size.
     */
    private static final int REPEATS = 3;
    /**
     * Untimed runs after the first, at most, while the heap still grows: memory the JVM commits
     * for the first time is slow to touch (a page fault per page), which a process in its steady
     * state no longer pays; a timed run that grows the heap took up to twice its steady time.
     */
    private static final int GROWING_RUNS = 3;

    public static void main(String[] args) throws IOException {
        List<Integer> sizes = new ArrayList<>();
        for (String a : args) {
            sizes.add(Integer.parseInt(a));
        }
        if (sizes.isEmpty()) {
            sizes = List.of(100_000, 1_000_000);
        }
        run(sizes, System.out);
    }

    /**
     * One row of the table: the times of one shape at one size, each the median of
     * {@value #REPEATS} runs after the first ({@code firstVerifyMs}: the first in-memory verify of
     * that size, which pays for growing the heap and compiling what the smaller runs did not reach).
     */
    public record Row(String shape, int stages, double validateMs, double verifyMs, double fileValidateMs, double fileVerifyMs,
                      double firstVerifyMs, long peakHeapMb, String verdict) {
        /** verify / validate, from memory. */
        public double ratio() {
            return verifyMs / validateMs;
        }

        /** The same, from the files. */
        public double fileRatio() {
            return fileVerifyMs / fileValidateMs;
        }
    }

    /**
     * Measures every shape at every size (after a warm-up on small programs of every shape; each
     * check run once untimed at its size before its {@value #REPEATS} timed runs), printing one
     * line per row as it is measured; returns the rows. Files are written to a
     * temporary directory that is deleted afterwards.
     */
    public static List<Row> run(List<Integer> sizes, PrintStream out) throws IOException {
        HeapPeak heap = new HeapPeak();
        Path dir = Files.createTempDirectory("stagecheck-bench-verifier");
        try {
            // the warm-up runs every path the measured runs take; a larger one than the sizes asked for would only add time
            int warmUp = Math.min(WARM_UP_STAGES, java.util.Collections.max(sizes));
            for (Shapes shape : Shapes.values()) {
                measure(shape, warmUp, dir, heap);
            }
            out.printf("%-7s %9s %12s %10s %6s %9s %12s %12s %6s %9s %8s %s%n", "shape", "stages", "validate ms", "verify ms", "ratio", "ns/stage",
                    "file val ms", "file ver ms", "ratio", "first ms", "heap MB", "verdict");
            List<Row> rows = new ArrayList<>();
            for (int n : sizes) {
                for (Shapes shape : Shapes.values()) {
                    Row r = measure(shape, n, dir, heap);
                    rows.add(r);
                    out.printf("%-7s %9d %12.1f %10.1f %6.2f %9.1f %12.1f %12.1f %6.2f %9.1f %8d %s%n", r.shape(), r.stages(), r.validateMs(), r.verifyMs(),
                            r.ratio(), r.verifyMs() * 1e6 / r.stages(), r.fileValidateMs(), r.fileVerifyMs(), r.fileRatio(), r.firstVerifyMs(),
                            r.peakHeapMb(), r.verdict());
                    out.flush();
                }
            }
            return rows;
        } finally {
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(dir);
        }
    }

    private static Row measure(Shapes shape, int n, Path dir, HeapPeak heap) throws IOException {
        Path programFile = dir.resolve("program.json");
        Path certFile = dir.resolve("cert.json");
        Runs memory = inMemory(shape.generate(n), programFile, certFile, heap);
        Runs files = runs(new FromFiles(programFile, certFile), heap);
        String verdict = !memory.valid() || !files.valid() ? "invalid"
                : files.findings() != null ? files.findings() + " from the file" : memory.findings() != null ? memory.findings() : "holds";
        return new Row(shape.label(), n, medianAfterFirst(memory.validate()), medianAfterFirst(memory.verify()), medianAfterFirst(files.validate()),
                medianAfterFirst(files.verify()), memory.verify()[0], Math.max(memory.peak(), files.peak()), verdict);
    }

    /**
     * Writes {@code g}'s files, then runs the checks on it in memory; the program is not held past
     * the return, so the runs from the files do not have it in their heap.
     */
    private static Runs inMemory(Generated g, Path programFile, Path certFile, HeapPeak heap) throws IOException {
        // streamed: the text of a 10^6-stage program held in memory (twice, while copied) could
        // exhaust a capped heap before anything is measured
        try (var out = new java.io.BufferedOutputStream(Files.newOutputStream(programFile))) {
            new ProgramCodec().writeTo(out, g.program());
        }
        Files.write(certFile, new CertificateCodec().write(g.certificate()));
        return runs(new InMemory(g), heap);
    }

    /** What the checks read: a generated program and its certificate in memory, or read from their files (the reading timed with the check). */
    private sealed interface Source permits InMemory, FromFiles {
        Program program() throws IOException;

        Certificate certificate() throws IOException;
    }

    private record InMemory(Generated g) implements Source {
        @Override
        public Program program() {
            return g.program();
        }

        @Override
        public Certificate certificate() {
            return g.certificate();
        }
    }

    private record FromFiles(Path programFile, Path certFile) implements Source {
        @Override
        public Program program() throws IOException {
            try {
                return ProgramFile.read(programFile).program();
            } catch (JsonFormatException e) {
                throw new IOException(e.getMessage(), e);
            }
        }

        @Override
        public Certificate certificate() throws IOException {
            try {
                return CertificateFile.read(certFile).certificate();
            } catch (JsonFormatException e) {
                throw new IOException(e.getMessage(), e);
            }
        }
    }

    /**
     * The times of the validator and of the verifier on {@code source}: the first run, then (after
     * up to {@value #GROWING_RUNS} untimed runs more while the heap still grew) {@value #REPEATS}
     * timed runs, each after {@link #settle}; the heap's peak over them all; whether the program
     * was valid every time; the last findings when one verification did not hold (null when every
     * one held).
     */
    private record Runs(double[] validate, double[] verify, long peak, boolean valid, String findings) {}

    private static Runs runs(Source source, HeapPeak heap) throws IOException {
        List<Once> all = new ArrayList<>();
        long committed = heap.committedBytes();
        Once first = once(source, heap);
        all.add(first);
        for (int k = 0; k < GROWING_RUNS && heap.committedBytes() > committed; k++) {
            committed = heap.committedBytes();
            all.add(once(source, heap)); // untimed: for the verdict and the peak only
        }
        double[] validate = new double[REPEATS + 1];
        double[] verify = new double[REPEATS + 1];
        validate[0] = first.validateMs();
        verify[0] = first.verifyMs();
        for (int i = 1; i <= REPEATS; i++) {
            Once timed = once(source, heap);
            all.add(timed);
            validate[i] = timed.validateMs();
            verify[i] = timed.verifyMs();
        }
        long peak = 0;
        boolean valid = true;
        String findings = null;
        for (Once o : all) {
            peak = Math.max(peak, o.peakMb());
            valid &= o.valid();
            findings = o.findings() != null ? o.findings() : findings;
        }
        return new Runs(validate, verify, peak, valid, findings);
    }

    /** One run of the validator and one of the verifier on {@code source}, each after {@link #settle}. */
    private record Once(double validateMs, double verifyMs, long peakMb, boolean valid, String findings) {}

    private static Once once(Source source, HeapPeak heap) throws IOException {
        settle(heap);
        long t0 = System.nanoTime();
        boolean valid = new Validator().validate(source.program()).isEmpty();
        double validateMs = (System.nanoTime() - t0) / 1e6;
        long peak = heap.peakMb();
        settle(heap);
        long t1 = System.nanoTime();
        VerifyReport r = new Verifier().verify(source.program(), source.certificate(), Parent.none());
        double verifyMs = (System.nanoTime() - t1) / 1e6;
        peak = Math.max(peak, heap.peakMb());
        return new Once(validateMs, verifyMs, peak, valid, r.holds() ? null : r.diagnostics().size() + " finding(s)");
    }

    /**
     * Before a run: the previous runs' terms and programs collected (a run starts with the heap
     * a process verifying one program starts with, not with a heap full of the last run's garbage
     * that a full collection in the middle of the timed run would clear), then the peak reset.
     */
    private static void settle(HeapPeak heap) {
        System.gc();
        heap.reset();
    }

    /** The median of {@code times} but the first (the untimed run). */
    static double medianAfterFirst(double[] times) {
        double[] timed = java.util.Arrays.copyOfRange(times, 1, times.length);
        java.util.Arrays.sort(timed);
        int m = timed.length / 2;
        return timed.length % 2 == 1 ? timed[m] : (timed[m - 1] + timed[m]) / 2;
    }

    /** A program and its certificate. */
    public record Generated(Program program, Certificate certificate) {}

    /** A valid split program of exactly {@code stages} stages (at least 8). */
    public static Generated generate(int stages) {
        List<TensorDecl> tensors = new ArrayList<>();
        List<BufferDecl> buffers = new ArrayList<>();
        List<ShardDecl> shards = new ArrayList<>();
        List<Stage> list = new ArrayList<>(stages);
        Shape row = Shape.of(1, WIDTH);
        int rows = WIDTH / TP;
        Shape w = Shape.of(rows, WIDTH);
        Shape slice = Shape.of(1, rows);
        AccessPattern.Block rowBlock = new AccessPattern.Block(List.of(Offset.constant(0), Offset.constant(0)), row);
        AccessPattern.Block wBlock = new AccessPattern.Block(List.of(Offset.constant(0), Offset.constant(0)), w);
        for (int c = 0; c < TP; c++) {
            Site site = new Site(c, 0, 0);
            tensors.add(new TensorDecl("x." + c, DType.F32, row, c, TensorRole.INPUT));
            tensors.add(new TensorDecl("w." + c, DType.F32, w, c, TensorRole.WEIGHT));
            tensors.add(new TensorDecl("b." + c, DType.F32, row, c, TensorRole.WEIGHT));
            tensors.add(new TensorDecl("y." + c, DType.F32, row, c, TensorRole.OUTPUT));
            for (String b : List.of("x", "b", "p", "r")) {
                buffers.add(new BufferDecl(b + "." + c, DType.F32, row, site));
            }
            buffers.add(new BufferDecl("w." + c, DType.F32, w, site));
            buffers.add(new BufferDecl("xs." + c, DType.F32, slice, site));
            // W row-parallel (the chip's rows of the contraction), x, b and y whole on every chip
            shards.add(new ShardDecl("w." + c, "w", 0, (long) c * rows, (long) (c + 1) * rows, WIDTH));
            shards.add(new ShardDecl("x." + c, "x", 0, 0, 1, 1));
            shards.add(new ShardDecl("b." + c, "b", 0, 0, 1, 1));
            shards.add(new ShardDecl("y." + c, "y", 0, 0, 1, 1));
            list.add(new Stage("ld_x." + c, site, List.of(), List.of("x." + c), new StageKind.Load("x." + c, rowBlock, 1, null)));
            list.add(new Stage("ld_b." + c, site, List.of(), List.of("b." + c), new StageKind.Load("b." + c, rowBlock, 1, null)));
        }
        StageKind.AllReduce allReduce = StageKind.AllReduce.of(ReducePool.SUM, "w", TP);
        StageKind.Compute matmul = new StageKind.Compute(ComputeOp.MatMul.plain());
        StageKind.Compute addBias = new StageKind.Compute(new ComputeOp.Generic(Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1))));
        StageKind.Load loadW0 = new StageKind.Load("w.0", wBlock, 1, null);
        StageKind.Load loadW1 = new StageKind.Load("w.1", wBlock, 1, null);
        List<String> partials = List.of("p.0", "p.1");
        List<String> reduced = List.of("r.0", "r.1");
        int tail = TP; // the final stores
        int layer = 0;
        while (true) {
            int perLayer = 4 * TP + 1;
            if (list.size() + perLayer + tail > stages) {
                break;
            }
            for (int c = 0; c < TP; c++) {
                Site site = new Site(c, 0, 0);
                list.add(new Stage("ld_w." + layer + "." + c, site, List.of(), List.of("w." + c), c == 0 ? loadW0 : loadW1));
                list.add(new Stage("sl." + layer + "." + c, site, List.of("x." + c), List.of("xs." + c),
                        new StageKind.Compute(new ComputeOp.Slice(List.of(0, c * rows)))));
                list.add(new Stage("mm." + layer + "." + c, site, List.of("xs." + c, "w." + c), List.of("p." + c), matmul));
            }
            list.add(new Stage("ar." + layer, new Site(0, 0, 0), partials, reduced, allReduce));
            for (int c = 0; c < TP; c++) {
                list.add(new Stage("add." + layer + "." + c, new Site(c, 0, 0), List.of("r." + c, "b." + c), List.of("x." + c), addBias));
            }
            layer++;
        }
        // pad with elementwise stages (full values) so the count is exact
        int pad = 0;
        if ((stages - tail - list.size()) % TP != 0) {
            // every chip scales alike; what is left over reloads chip 0's bias, which changes nothing
            for (int k = (stages - tail - list.size()) % TP; k > 0; k--) {
                list.add(new Stage("ld_b.pad." + k, new Site(0, 0, 0), List.of(), List.of("b.0"), new StageKind.Load("b.0", rowBlock, 1, null)));
            }
        }
        while (list.size() + tail < stages) {
            int c = pad++ % TP;
            list.add(new Stage("scale." + pad, new Site(c, 0, 0), List.of("x." + c), List.of("x." + c),
                    new StageKind.Compute(new ComputeOp.Generic(Expr.apply(Fn.MUL, Expr.in(0), Expr.f(0.5))))));
        }
        for (int c = 0; c < TP; c++) {
            list.add(new Stage("st_y." + c, new Site(c, 0, 0), List.of("x." + c), List.of(), new StageKind.Store("y." + c, rowBlock, 1, WIDTH)));
        }
        Program p = new Program("scale-" + stages, new Machine(TP, 1, 1), List.of(), tensors, buffers, List.of(), list);
        return new Generated(p, new Certificate(shards, null, List.of()));
    }

    private ScaleBench() {}
}
