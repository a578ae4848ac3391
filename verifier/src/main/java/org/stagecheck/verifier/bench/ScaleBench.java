package org.stagecheck.verifier.bench;

import java.io.PrintStream;
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
import org.stagecheck.verifier.VerifyReport;
import org.stagecheck.verifier.Parent;
import org.stagecheck.verifier.Verifier;

/**
 * The verifier's scaling benchmark: generates tensor-parallel programs of 10^3 .. 10^6
 * stages, verifies each, and prints size, time and time per stage. A constant ns/stage across
 * sizes shows the check is linear. Run as {@code stagecheck bench verifier} or
 * {@code java -cp ... org.stagecheck.verifier.bench.ScaleBench [sizes...]}.
 *
 * <p>The program: {@code tp} chips; per layer, every chip loads its row shard of a weight,
 * multiplies (a partial), one sum all-reduce, every chip adds a bias and feeds the next layer.
 * Buffers and tensors are reused across layers, so memory grows with the stage list only.
 */
public final class ScaleBench {
    private static final int TP = 2;
    private static final int WIDTH = 8;

    public static void main(String[] args) {
        List<Integer> sizes = new ArrayList<>();
        for (String a : args) {
            sizes.add(Integer.parseInt(a));
        }
        if (sizes.isEmpty()) {
            sizes = List.of(1_000, 10_000, 100_000, 1_000_000);
        }
        run(sizes, System.out);
    }

    /** Verifies one program per size (after a warm-up) and prints a table; returns ns per stage for each size. */
    public static double[] run(List<Integer> sizes, PrintStream out) {
        Verifier verifier = new Verifier();
        Generated warm = generate(20_000);
        verifier.verify(warm.program(), warm.certificate(), Parent.none());
        out.printf("%10s %12s %12s %10s %s%n", "stages", "generate ms", "verify ms", "ns/stage", "verdict");
        double[] nsPerStage = new double[sizes.size()];
        for (int i = 0; i < sizes.size(); i++) {
            int n = sizes.get(i);
            long t0 = System.nanoTime();
            Generated g = generate(n);
            long t1 = System.nanoTime();
            VerifyReport r = verifier.verify(g.program(), g.certificate(), Parent.none());
            long t2 = System.nanoTime();
            nsPerStage[i] = (t2 - t1) / (double) n;
            out.printf("%10d %12.1f %12.1f %10.1f %s%n", n, (t1 - t0) / 1e6, (t2 - t1) / 1e6, nsPerStage[i],
                    r.holds() ? "holds" : r.diagnostics().size() + " finding(s)");
        }
        return nsPerStage;
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
