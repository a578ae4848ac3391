package org.stagecheck.interp.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stagecheck.interp.Fixtures.CORE;

import java.util.List;
import java.util.Random;

import java.util.SplittableRandom;
import org.stagecheck.proptest.Draw;
import org.stagecheck.proptest.SeededProperty;
import org.stagecheck.interp.Fixtures;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.backend.RunResult;
import org.stagecheck.tensor.numeric.Rounding;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Shape;

/**
 * A review of the evaluator, MatMul as a stage (docs/semantics.md, "MatMul"): every transpose
 * combination, every bias shape that broadcasts ([N], [1,N], [M,1], [M,N]), f32/bf16/f16 operands,
 * bias and output, K = 1 and M or N = 1, and a spill carried over two stages, each compared bit
 * for bit with the written chain computed here independently: {@code acc = spill; acc = fma(a, b,
 * acc)} for k ascending; {@code spill = acc}; {@code out = round(acc + bias)}.
 */
class MatMulStageTest {
    enum BiasShape { NONE, ROW, ROW2, COLUMN, FULL }

    private static final DType[] FLOATING = {DType.F32, DType.BF16, DType.F16};
    private static final Integer[] EXTENTS = {1, 1, 2, 3, 4, 5, 7, 9, 65};

    private static Tensor random(DType dt, Random r, int... dims) {
        float[] v = new float[(int) Shape.of(dims).elementCount()];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) r.nextGaussian();
        }
        return Tensor.fromFloats(dt, Shape.of(dims), v);
    }

    @SeededProperty(tries = 80)
    void theStageEqualsTheWrittenChainForEveryTransposeBiasAndDtype(long seed) {
        SplittableRandom draw = new SplittableRandom(seed);
        int m = Draw.oneOf(draw, EXTENTS);
        int k = Draw.oneOf(draw, EXTENTS);
        int n = Draw.oneOf(draw, EXTENTS);
        boolean tA = draw.nextBoolean();
        boolean tB = draw.nextBoolean();
        BiasShape biasShape = Draw.oneOf(draw, BiasShape.class);
        DType da = Draw.oneOf(draw, FLOATING);
        DType db = Draw.oneOf(draw, FLOATING);
        DType dbias = Draw.oneOf(draw, FLOATING);
        DType dout = Draw.oneOf(draw, FLOATING);
        boolean spill = draw.nextBoolean();
        int threads = Draw.between(draw, 1, 3);
        Random r = new Random(seed);
        // two stages share the spill: out1 = A1.B1, out2 = A2.B2 + acc(out1) (+ bias)
        Tensor a1 = random(da, r, tA ? new int[] {k, m} : new int[] {m, k});
        Tensor b1 = random(db, r, tB ? new int[] {n, k} : new int[] {k, n});
        Tensor a2 = random(da, r, tA ? new int[] {k, m} : new int[] {m, k});
        Tensor b2 = random(db, r, tB ? new int[] {n, k} : new int[] {k, n});
        int[] bdims = switch (biasShape) {
            case NONE, ROW -> new int[] {n};
            case ROW2 -> new int[] {1, n};
            case COLUMN -> new int[] {m, 1};
            case FULL -> new int[] {m, n};
        };
        Tensor bias = random(dbias, r, bdims);
        String biasName = biasShape == BiasShape.NONE ? null : "Bias";
        String spillName = spill ? "acc" : null;
        Fixtures p = Fixtures.program()
                .input("a1", a1).input("b1", b1).input("a2", a2).input("b2", b2).input("bias", bias)
                .buffer("A1", da, a1.shape().toArray()).buffer("B1", db, b1.shape().toArray())
                .buffer("A2", da, a2.shape().toArray()).buffer("B2", db, b2.shape().toArray())
                .buffer("Bias", dbias, bdims).buffer("acc", DType.F32, m, n)
                .buffer("o1", dout, m, n).buffer("o2", dout, m, n).buffer("spillCopy", DType.F32, m, n)
                .loadAll("la1", "a1", "A1", CORE).loadAll("lb1", "b1", "B1", CORE)
                .loadAll("la2", "a2", "A2", CORE).loadAll("lb2", "b2", "B2", CORE).loadAll("lbias", "bias", "Bias", CORE)
                .compute("mm1", List.of("A1", "B1"), "o1", new ComputeOp.MatMul(tA, tB, null, spillName))
                .compute("mm2", List.of("A2", "B2"), "o2", new ComputeOp.MatMul(tA, tB, biasName, spillName));
        if (spill) {
            p.generic("readSpill", List.of("acc"), "spillCopy", Expr.in(0));
        }
        RunResult res = p.run(RunOptions.defaults().withTrace(true).withThreads(threads));
        assertThat(res.faults()).isEmpty();

        float[] acc = chain(new float[m * n], a1, b1, tA, tB, m, k, n);
        float[] out1 = new float[m * n];
        for (int e = 0; e < out1.length; e++) {
            out1[e] = Rounding.roundTo(dout, acc[e]);
        }
        float[] acc2 = chain(spill ? acc : new float[m * n], a2, b2, tA, tB, m, k, n);
        float[] out2 = new float[m * n];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                float b = switch (biasShape) {
                    case NONE -> 0f;
                    case ROW, ROW2 -> bias.getFloat(j);
                    case COLUMN -> bias.getFloat(i);
                    case FULL -> bias.getFloat((long) i * n + j);
                };
                float sum = biasShape == BiasShape.NONE ? acc2[i * n + j] : acc2[i * n + j] + b;
                out2[i * n + j] = Rounding.roundTo(dout, sum);
            }
        }
        assertBits(res.trace().get("mm1").getFirst().toFloats(), out1, "mm1");
        assertBits(res.trace().get("mm2").getFirst().toFloats(), out2, "mm2");
        if (spill) {
            assertBits(res.trace().get("readSpill").getFirst().toFloats(), acc2, "spill after mm2");
        }
    }

    /** {@code acc[i,j] = fma(a[i,k], b[k,j], acc[i,j])} for k ascending, on the operands' exact f32 values. */
    private static float[] chain(float[] init, Tensor a, Tensor b, boolean tA, boolean tB, int m, int k, int n) {
        float[] acc = init.clone();
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                float c = acc[i * n + j];
                for (int kk = 0; kk < k; kk++) {
                    float x = a.getFloat(tA ? (long) kk * m + i : (long) i * k + kk);
                    float y = b.getFloat(tB ? (long) j * k + kk : (long) kk * n + j);
                    c = Math.fma(x, y, c);
                }
                acc[i * n + j] = c;
            }
        }
        return acc;
    }

    private static void assertBits(float[] got, float[] expect, String what) {
        assertThat(got).hasSameSizeAs(expect);
        for (int e = 0; e < got.length; e++) {
            assertThat(Float.floatToRawIntBits(got[e])).as("%s element %d: %s vs %s", what, e, got[e], expect[e])
                    .isEqualTo(Float.floatToRawIntBits(expect[e]));
        }
    }
}
