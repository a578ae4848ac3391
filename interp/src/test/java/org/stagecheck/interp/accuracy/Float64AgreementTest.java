package org.stagecheck.interp.accuracy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stagecheck.interp.Fixtures.CORE;

import java.util.List;
import java.util.Random;

import java.util.SplittableRandom;
import org.stagecheck.proptest.Draw;
import org.stagecheck.proptest.SeededProperty;
import org.stagecheck.interp.Fixtures;
import org.stagecheck.interp.Precision;
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
 * A review of the evaluator, float64 mode (docs/semantics.md, "Float64 mode"): the float64 MatMul is
 * a separate loop from the f32 kernel, so the same program - both transposes, a bias of every
 * broadcast shape, a spill carried across two stages, then a Generic and a
 * Reduce - must agree with the f32 run within the f32 error bound of each output: {@code (K + 3)
 * u sum|terms|}, u = 2^-24. A float64 path that dropped the bias, read a transposed operand
 * untransposed or ignored the spill would miss it by whole terms.
 */
class Float64AgreementTest {
    private static final DType[] FLOATING = {DType.F32, DType.BF16, DType.F16};
    private static final Integer[] EXTENTS = {1, 2, 3, 5, 8, 17};

    private static Tensor random(DType dt, Random r, int... dims) {
        float[] v = new float[(int) Shape.of(dims).elementCount()];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) r.nextGaussian();
        }
        return Tensor.fromFloats(dt, Shape.of(dims), v);
    }

    @SeededProperty(tries = 60)
    void f32AndF64RunsAgreeWithinTheF32Bound(long seed) {
        SplittableRandom draw = new SplittableRandom(seed);
        int m = Draw.oneOf(draw, EXTENTS);
        int k = Draw.oneOf(draw, EXTENTS);
        int n = Draw.oneOf(draw, EXTENTS);
        boolean tA = draw.nextBoolean();
        boolean tB = draw.nextBoolean();
        boolean biasColumn = draw.nextBoolean();
        DType dt = Draw.oneOf(draw, FLOATING);
        Random r = new Random(seed);
        int[] aDims = tA ? new int[] {k, m} : new int[] {m, k};
        int[] bDims = tB ? new int[] {n, k} : new int[] {k, n};
        int[] biasDims = biasColumn ? new int[] {m, 1} : new int[] {n};
        Tensor a1 = random(dt, r, aDims);
        Tensor a2 = random(dt, r, aDims);
        Tensor b = random(dt, r, bDims);
        Tensor bias = random(dt, r, biasDims);
        Fixtures p = Fixtures.program()
                .input("a1", a1).input("a2", a2).input("b", b).input("bias", bias)
                .buffer("A1", dt, aDims).buffer("A2", dt, aDims).buffer("B", dt, bDims).buffer("Bias", dt, biasDims)
                .buffer("acc", DType.F32, m, n).buffer("o1", DType.F32, m, n).buffer("o2", DType.F32, m, n)
                .buffer("g", DType.F32, m, n).buffer("s", DType.F32, m, 1)
                .loadAll("la1", "a1", "A1", CORE).loadAll("la2", "a2", "A2", CORE)
                .loadAll("lb", "b", "B", CORE).loadAll("lbias", "bias", "Bias", CORE)
                .compute("mm1", List.of("A1", "B"), "o1", new ComputeOp.MatMul(tA, tB, null, "acc"))
                .compute("mm2", List.of("A2", "B"), "o2", new ComputeOp.MatMul(tA, tB, "Bias", "acc"))
                .generic("g", List.of("o2"), "g", Expr.apply(Fn.MUL, Expr.in(0), Expr.f(0.5)))
                .compute("sum", List.of("g"), "s", new ComputeOp.Reduce(ReduceFn.SUM, 1));
        RunResult f32 = p.run(RunOptions.defaults().withTrace(true));
        RunResult f64 = p.run(RunOptions.defaults().withTrace(true).withPrecision(Precision.F64));
        assertThat(f32.faults()).isEmpty();
        assertThat(f64.faults()).isEmpty();
        assertThat(f64.trace().get("mm2").getFirst().isFloat64()).isTrue();

        // the magnitude of the terms of every o2 element: |a1 b| + |a2 b| + |bias|, all exact in double
        double[] scale = new double[m * n];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double t = Math.abs(bias.getDouble(biasColumn ? i : j));
                for (int kk = 0; kk < k; kk++) {
                    long ai = tA ? (long) kk * m + i : (long) i * k + kk;
                    double bv = b.getDouble(tB ? (long) j * k + kk : (long) kk * n + j);
                    t += Math.abs(a1.getDouble(ai) * bv) + Math.abs(a2.getDouble(ai) * bv);
                }
                scale[i * n + j] = t;
            }
        }
        double u = 0x1p-24;
        Tensor x32 = f32.trace().get("mm2").getFirst();
        Tensor x64 = f64.trace().get("mm2").getFirst();
        Tensor s32 = f32.trace().get("sum").getFirst();
        Tensor s64 = f64.trace().get("sum").getFirst();
        for (int e = 0; e < scale.length; e++) {
            assertThat(Math.abs(x32.getDouble(e) - x64.getDouble(e))).as("mm2 element %d", e)
                    .isLessThanOrEqualTo((2 * k + 3) * u * scale[e]);
        }
        for (int row = 0; row < m; row++) {
            double rowScale = 0;
            for (int j = 0; j < n; j++) {
                rowScale += scale[row * n + j];
            }
            assertThat(Math.abs(s32.getDouble(row) - s64.getDouble(row))).as("sum row %d", row)
                    .isLessThanOrEqualTo((2 * k + n + 4) * u * rowScale);
        }
    }
}
