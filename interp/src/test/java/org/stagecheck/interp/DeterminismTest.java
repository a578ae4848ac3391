package org.stagecheck.interp;

import org.stagecheck.backend.RunResult;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.TensorRole;

/**
 * Bit-reproducibility (brief, "Reference semantics"): the blocked, multi-threaded matmul equals
 * the written definition (one sequential fma chain per output element, k ascending) bit for bit,
 * and a program gives identical bytes run twice and with 1 vs 4 threads. Sizes cross every tile
 * boundary of the kernel (4-row groups, 256-column tiles, 256-deep k chunks, 64-row tasks).
 */
class DeterminismTest {

    static Tensor random(DType d, Random rnd, int... dims) {
        Shape s = Shape.of(dims);
        float[] v = new float[(int) s.elementCount()];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) rnd.nextGaussian();
        }
        return Tensor.fromFloats(d, s, v);
    }

    static Fixtures matmulProgram(Tensor a, Tensor b, boolean tB, DType out) {
        int m = a.shape().dim(0);
        int n = tB ? b.shape().dim(0) : b.shape().dim(1);
        return Fixtures.program()
                .tensor("a", TensorRole.INPUT, 0, a).tensor("w", TensorRole.WEIGHT, 0, b)
                .output("y", out, m, n)
                .buffer("A", a.dtype(), a.shape().toArray()).buffer("W", b.dtype(), b.shape().toArray())
                .buffer("Y", out, m, n).buffer("R", DType.F32, m, 1).buffer("Z", DType.F32, m, n)
                .loadAll("la", "a", "A", Fixtures.CORE).loadAll("lw", "w", "W", Fixtures.CORE)
                .compute("mm", List.of("A", "W"), "Y", new ComputeOp.MatMul(false, tB, null, null))
                .generic("act", List.of("Y"), "Z", Expr.apply(Fn.TANH, Expr.in(0)))
                .compute("sum", List.of("Z"), "R", new ComputeOp.Reduce(ReduceFn.SUM, 1))
                .storeAll("st", "Y", "y", Fixtures.CORE);
    }

    /** The written definition, directly: acc = fma(a[i,k], b[k,j], acc) for k ascending, from +0. */
    static float[] definition(Tensor a, Tensor b, boolean tB) {
        int m = a.shape().dim(0);
        int k = a.shape().dim(1);
        int n = tB ? b.shape().dim(0) : b.shape().dim(1);
        float[] out = new float[m * n];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                float acc = 0f;
                for (int kk = 0; kk < k; kk++) {
                    acc = Math.fma(a.getFloat((long) i * k + kk), b.getFloat(tB ? (long) j * k + kk : (long) kk * n + j), acc);
                }
                out[i * n + j] = acc;
            }
        }
        return out;
    }

    @ParameterizedTest
    @CsvSource({"F32,false", "BF16,false", "F16,false", "F32,true", "BF16,true"})
    void theBlockedKernelEqualsTheSequentialChainBitForBit(DType wd, boolean tB) {
        Random rnd = new Random(42);
        Tensor a = random(DType.F32, rnd, 70, 300);
        Tensor b = tB ? random(wd, rnd, 270, 300) : random(wd, rnd, 300, 270);
        RunResult r = matmulProgram(a, b, tB, DType.F32).run(RunOptions.defaults().withThreads(3).withTrace(true));
        assertThat(r.faults()).isEmpty();
        float[] expect = definition(a, b, tB);
        float[] got = r.trace().get("mm").getFirst().toFloats();
        for (int e = 0; e < expect.length; e++) {
            assertThat(Float.floatToRawIntBits(got[e])).as("element %d", e).isEqualTo(Float.floatToRawIntBits(expect[e]));
        }
    }

    @ParameterizedTest
    @CsvSource({"F32,F32", "BF16,BF16", "F16,F32"})
    void identicalBytesRunTwiceAndWithOneFourOrAllThreads(DType wd, DType out) {
        Random rnd = new Random(7);
        Fixtures p = matmulProgram(random(DType.F32, rnd, 65, 513), random(wd, rnd, 513, 257), false, out);
        RunResult one = p.run(RunOptions.defaults().withThreads(1).withTrace(true));
        RunResult four = p.run(RunOptions.defaults().withThreads(4).withTrace(true));
        RunResult again = p.run(RunOptions.defaults().withTrace(true)); // all available processors
        assertThat(one.faults()).isEmpty();
        for (String stage : one.trace().keySet()) {
            for (int port = 0; port < one.trace().get(stage).size(); port++) {
                assertThat(one.trace().get(stage).get(port).bitEquals(four.trace().get(stage).get(port))).as(stage).isTrue();
                assertThat(four.trace().get(stage).get(port).checksum()).isEqualTo(again.trace().get(stage).get(port).checksum());
            }
        }
        assertThat(one.tensor("y").bitEquals(four.tensor("y"))).isTrue();
    }
}
