package org.stagecheck.interp.accuracy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.ops.transforms.Transforms;
import org.stagecheck.interp.Fixtures;
import org.stagecheck.proptest.Draw;
import org.stagecheck.proptest.SeededProperty;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.backend.RunResult;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.Shape;

/**
 * The evaluator against ND4J on random shapes and values. Tolerances: matmul
 * and sums within {@code 1e-5 * sum|terms| + 1e-6} (both sides accumulate in f32 in different
 * orders); transcendental functions within 2e-6 relative (ND4J uses the platform's float libm);
 * layout ops, max/min/argmax, i32 arithmetic and comparisons exactly.
 */
@Tag("slow")
class Nd4jComparisonTest {

    @BeforeAll
    static void requireNd4j() {
        // reported once; each property also assumes, so a machine without ND4J skips cleanly
        if (Nd4jOracle.problem() != null) {
            System.err.println("Nd4jComparisonTest skipped: " + Nd4jOracle.problem());
        }
    }

    private static void assumeNd4j() {
        assumeTrue(Nd4jOracle.problem() == null, () -> "skipped: " + Nd4jOracle.problem());
    }

    private static float[] gaussian(long seed, int n) {
        Random r = new Random(seed);
        float[] v = new float[n];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) r.nextGaussian();
        }
        return v;
    }

    private static RunResult runOne(Tensor[] ins, String[] names, DType outType, int[] outDims, ComputeOp op) {
        Fixtures p = Fixtures.program();
        List<String> bufs = new ArrayList<>();
        for (int i = 0; i < ins.length; i++) {
            p.input(names[i], ins[i]).buffer("B" + i, ins[i].dtype(), ins[i].shape().toArray())
                    .loadAll("l" + i, names[i], "B" + i, Fixtures.CORE);
            bufs.add("B" + i);
        }
        p.buffer("OUT", outType, outDims).compute("op", bufs, "OUT", op);
        RunResult r = p.run(RunOptions.defaults().withTrace(true).withThreads(2));
        assertThat(r.faults()).isEmpty();
        return r;
    }

    private static float[] out(RunResult r) {
        return r.trace().get("op").getFirst().toFloats();
    }

    @SeededProperty(tries = 40)
    void matmulAgreesWithNd4j(long seed) {
        assumeNd4j();
        SplittableRandom draw = new SplittableRandom(seed);
        int m = Draw.between(draw, 1, 33);
        int k = Draw.between(draw, 1, 300);
        int n = Draw.between(draw, 1, 33);
        boolean tA = draw.nextBoolean();
        boolean tB = draw.nextBoolean();
        float[] a = gaussian(seed, m * k);
        float[] b = gaussian(seed + 1, k * n);
        int[] aDims = tA ? new int[] {k, m} : new int[] {m, k};
        int[] bDims = tB ? new int[] {n, k} : new int[] {k, n};
        RunResult r = runOne(new Tensor[] {Fixtures.f32(aDims, a), Fixtures.f32(bDims, b)}, new String[] {"a", "b"},
                DType.F32, new int[] {m, n}, new ComputeOp.MatMul(tA, tB, null, null));
        INDArray na = Nd4jOracle.floats(a, aDims);
        INDArray nb = Nd4jOracle.floats(b, bDims);
        INDArray expect = (tA ? na.transpose() : na).mmul(tB ? nb.transpose() : nb);
        INDArray mag = Transforms.abs(tA ? na.transpose() : na, true).mmul(Transforms.abs(tB ? nb.transpose() : nb, true));
        float[] got = out(r);
        float[] want = Nd4jOracle.toFloats(expect);
        float[] bound = Nd4jOracle.toFloats(mag);
        for (int e = 0; e < got.length; e++) {
            assertThat((double) got[e]).as("element %d", e).isCloseTo(want[e], org.assertj.core.data.Offset.offset(1e-5 * bound[e] + 1e-6));
        }
    }

    @SeededProperty(tries = 40)
    void reductionsAgreeWithNd4j(long seed) {
        assumeNd4j();
        SplittableRandom draw = new SplittableRandom(seed);
        int[] dims = Draw.list(draw, 1, 3, () -> Draw.between(draw, 1, 9)).stream().mapToInt(Integer::intValue).toArray();
        int axisPick = Draw.between(draw, 0, 2);
        ReduceFn fn = Draw.oneOf(draw, ReduceFn.class);
        int axis = axisPick % dims.length;
        int count = (int) Shape.of(dims).elementCount();
        float[] x = gaussian(seed, count);
        int[] outDims = dims.clone();
        outDims[axis] = 1;
        DType outType = fn == ReduceFn.ARGMAX ? DType.I32 : DType.F32;
        RunResult r = runOne(new Tensor[] {Fixtures.f32(dims, x)}, new String[] {"x"}, outType, outDims, new ComputeOp.Reduce(fn, axis));
        INDArray nx = Nd4jOracle.floats(x, dims);
        float[] got = out(r);
        switch (fn) {
            case SUM -> {
                float[] want = Nd4jOracle.toFloats(nx.sum(true, axis));
                float[] mag = Nd4jOracle.toFloats(Transforms.abs(nx, true).sum(true, axis));
                for (int e = 0; e < got.length; e++) {
                    assertThat((double) got[e]).isCloseTo(want[e], org.assertj.core.data.Offset.offset(1e-5 * mag[e] + 1e-6));
                }
            }
            case MAX -> assertThat(got).containsExactly(Nd4jOracle.toFloats(nx.max(true, axis)));
            case MIN -> assertThat(got).containsExactly(Nd4jOracle.toFloats(nx.min(true, axis)));
            case ARGMAX -> assertThat(r.trace().get("op").getFirst().toInts())
                    .containsExactly(Nd4jOracle.toInts(Nd4j.argMax(nx, axis)));
        }
    }

    enum Unary { EXP, LOG, SQRT, TANH, SIGMOID, ABS, NEG }

    @SeededProperty(tries = 30)
    void elementwiseFunctionsAgreeWithNd4j(long seed) {
        assumeNd4j();
        SplittableRandom draw = new SplittableRandom(seed);
        Unary f = Draw.oneOf(draw, Unary.class);
        int n = Draw.between(draw, 1, 200);
        float[] x = gaussian(seed, n);
        if (f == Unary.LOG || f == Unary.SQRT) {
            for (int i = 0; i < n; i++) {
                x[i] = Math.abs(x[i]) + 1e-3f;
            }
        }
        Fn fn = Fn.valueOf(f.name());
        RunResult r = runOne(new Tensor[] {Fixtures.f32(new int[] {n}, x)}, new String[] {"x"}, DType.F32, new int[] {n},
                new ComputeOp.Generic(Expr.apply(fn, Expr.in(0))));
        INDArray nx = Nd4jOracle.floats(x, n);
        INDArray want = switch (f) {
            case EXP -> Transforms.exp(nx, true);
            case LOG -> Transforms.log(nx, true);
            case SQRT -> Transforms.sqrt(nx, true);
            case TANH -> Transforms.tanh(nx, true);
            case SIGMOID -> Transforms.sigmoid(nx, true);
            case ABS -> Transforms.abs(nx, true);
            case NEG -> nx.neg();
        };
        float[] got = out(r);
        float[] w = Nd4jOracle.toFloats(want);
        for (int e = 0; e < n; e++) {
            if (f == Unary.ABS || f == Unary.NEG || f == Unary.SQRT) {
                assertThat(got[e]).as("%s exact at %d", f, e).isEqualTo(w[e]);
            } else {
                assertThat((double) got[e]).as("%s(%s)", f, x[e]).isCloseTo(w[e], org.assertj.core.data.Offset.offset(2e-6 * Math.abs(w[e]) + 1e-7));
            }
        }
    }

    @SeededProperty(tries = 30)
    void binaryArithmeticAgreesWithNd4jExactly(long seed) {
        assumeNd4j();
        SplittableRandom draw = new SplittableRandom(seed);
        int rows = Draw.between(draw, 1, 7);
        int cols = Draw.between(draw, 1, 9);
        float[] x = gaussian(seed, rows * cols);
        float[] b = gaussian(seed + 3, cols);
        INDArray nx = Nd4jOracle.floats(x, rows, cols);
        INDArray nb = Nd4jOracle.floats(b, 1, cols);
        for (Fn fn : List.of(Fn.ADD, Fn.SUB, Fn.MUL, Fn.DIV, Fn.MAX, Fn.MIN)) {
            RunResult r = runOne(new Tensor[] {Fixtures.f32(new int[] {rows, cols}, x), Fixtures.f32(new int[] {cols}, b)},
                    new String[] {"x", "b"}, DType.F32, new int[] {rows, cols},
                    new ComputeOp.Generic(Expr.apply(fn, Expr.in(0), Expr.in(1))));
            INDArray want = switch (fn) {
                case ADD -> nx.addRowVector(nb);
                case SUB -> nx.subRowVector(nb);
                case MUL -> nx.mulRowVector(nb);
                case DIV -> nx.divRowVector(nb);
                case MAX -> Transforms.max(nx, nb.broadcast(rows, cols), true);
                default -> Transforms.min(nx, nb.broadcast(rows, cols), true);
            };
            assertThat(out(r)).as(fn.spelling()).containsExactly(Nd4jOracle.toFloats(want));
        }
    }

    @SeededProperty(tries = 30)
    void i32ArithmeticAndComparisonsAgreeWithNd4jExactly(long seed) {
        assumeNd4j();
        int n = Draw.between(new SplittableRandom(seed), 1, 50);
        Random rnd = new Random(seed);
        int[] x = new int[n];
        int[] y = new int[n];
        for (int i = 0; i < n; i++) {
            x[i] = rnd.nextInt(2001) - 1000;
            y[i] = rnd.nextInt(2001) - 1000;
        }
        Tensor[] ins = {Fixtures.i32(new int[] {n}, x), Fixtures.i32(new int[] {n}, y)};
        String[] names = {"x", "y"};
        INDArray nx = Nd4jOracle.ints(x, n);
        INDArray ny = Nd4jOracle.ints(y, n);
        RunResult add = runOne(ins, names, DType.I32, new int[] {n}, new ComputeOp.Generic(Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1))));
        RunResult mul = runOne(ins, names, DType.I32, new int[] {n}, new ComputeOp.Generic(Expr.apply(Fn.MUL, Expr.in(0), Expr.in(1))));
        RunResult gt = runOne(ins, names, DType.I32, new int[] {n}, new ComputeOp.Generic(
                new Expr.Cast(DType.I32, Expr.apply(Fn.GT, Expr.in(0), Expr.in(1)))));
        assertThat(add.trace().get("op").getFirst().toInts()).containsExactly(Nd4jOracle.toInts(nx.add(ny)));
        assertThat(mul.trace().get("op").getFirst().toInts()).containsExactly(Nd4jOracle.toInts(nx.mul(ny)));
        assertThat(gt.trace().get("op").getFirst().toInts()).containsExactly(Nd4jOracle.toInts(nx.gt(ny)));
    }

    @SeededProperty(tries = 30)
    void layoutOpsAgreeWithNd4jExactly(long seed) {
        assumeNd4j();
        SplittableRandom draw = new SplittableRandom(seed);
        int d0 = Draw.between(draw, 1, 6);
        int d1 = Draw.between(draw, 1, 6);
        int d2 = Draw.between(draw, 1, 6);
        int[] dims = {d0, d1, d2};
        float[] x = gaussian(seed, d0 * d1 * d2);
        Tensor t = Fixtures.f32(dims, x);
        INDArray nx = Nd4jOracle.floats(x, dims);
        RunResult tr = runOne(new Tensor[] {t}, new String[] {"x"}, DType.F32, new int[] {d2, d0, d1},
                new ComputeOp.Transpose(List.of(2, 0, 1)));
        assertThat(out(tr)).containsExactly(Nd4jOracle.toFloats(nx.permute(2, 0, 1)));
        int s1 = d1 / 2;
        RunResult sl = runOne(new Tensor[] {t}, new String[] {"x"}, DType.F32, new int[] {d0, d1 - s1, d2},
                new ComputeOp.Slice(List.of(0, s1, 0)));
        assertThat(out(sl)).containsExactly(Nd4jOracle.toFloats(
                nx.get(NDArrayIndex.all(), NDArrayIndex.interval(s1, d1), NDArrayIndex.all())));
        RunResult cat = runOne(new Tensor[] {t, t}, new String[] {"x", "y"}, DType.F32, new int[] {d0, 2 * d1, d2},
                new ComputeOp.Concat(1));
        assertThat(out(cat)).containsExactly(Nd4jOracle.toFloats(Nd4j.concat(1, nx, nx)));
        RunResult rs = runOne(new Tensor[] {t}, new String[] {"x"}, DType.F32, new int[] {d2 * d1, d0},
                new ComputeOp.Reshape());
        assertThat(out(rs)).containsExactly(Nd4jOracle.toFloats(nx.reshape('c', d2 * d1, d0)));
    }
}
