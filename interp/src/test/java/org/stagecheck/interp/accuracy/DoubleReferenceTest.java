package org.stagecheck.interp.accuracy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;

import org.stagecheck.proptest.SeededProperty;
import org.stagecheck.interp.Fixtures;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.backend.RunResult;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.ReduceFn;

/**
 * A second, native-free oracle: straightforward double-precision loops. It runs on every machine
 * (also where ND4J cannot load) and bounds the f32 evaluator's error by the classic
 * {@code K * 2^-24 * sum|terms|} for sums and half an f32 ulp (plus StrictMath's 1 ulp in double)
 * for transcendental functions.
 */
class DoubleReferenceTest {

    @SeededProperty(tries = 40)
    void matmulIsWithinTheF32ErrorBoundOfTheDoubleProduct(long seed) {
        Random r = new Random(seed);
        int m = 1 + r.nextInt(20);
        int k = 1 + r.nextInt(400);
        int n = 1 + r.nextInt(20);
        float[] a = new float[m * k];
        float[] b = new float[k * n];
        for (int i = 0; i < a.length; i++) a[i] = (float) r.nextGaussian();
        for (int i = 0; i < b.length; i++) b[i] = (float) r.nextGaussian();
        RunResult res = Fixtures.program()
                .input("a", Fixtures.f32(new int[] {m, k}, a)).input("b", Fixtures.f32(new int[] {k, n}, b))
                .buffer("A", DType.F32, m, k).buffer("B", DType.F32, k, n).buffer("y", DType.F32, m, n)
                .loadAll("la", "a", "A", Fixtures.CORE).loadAll("lb", "b", "B", Fixtures.CORE)
                .compute("mm", List.of("A", "B"), "y", ComputeOp.MatMul.plain())
                .run(RunOptions.defaults().withTrace(true));
        float[] got = res.trace().get("mm").getFirst().toFloats();
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double exact = 0;
                double mag = 0;
                for (int kk = 0; kk < k; kk++) {
                    exact += (double) a[i * k + kk] * b[kk * n + j];
                    mag += Math.abs((double) a[i * k + kk] * b[kk * n + j]);
                }
                assertThat((double) got[i * n + j]).isCloseTo(exact, org.assertj.core.data.Offset.offset((k + 1) * 0x1p-24 * mag + 1e-30));
            }
        }
    }

    @SeededProperty(tries = 40)
    void sumIsWithinTheF32ErrorBoundAndMaxIsExact(long seed) {
        Random r = new Random(seed);
        int len = 1 + r.nextInt(500);
        float[] x = new float[len];
        for (int i = 0; i < len; i++) x[i] = (float) r.nextGaussian();
        RunResult res = Fixtures.program()
                .input("x", Fixtures.f32(new int[] {1, len}, x))
                .buffer("X", DType.F32, 1, len).buffer("s", DType.F32, 1, 1).buffer("mx", DType.F32, 1, 1)
                .loadAll("lx", "x", "X", Fixtures.CORE)
                .compute("sum", List.of("X"), "s", new ComputeOp.Reduce(ReduceFn.SUM, 1))
                .compute("max", List.of("X"), "mx", new ComputeOp.Reduce(ReduceFn.MAX, 1))
                .run(RunOptions.defaults().withTrace(true));
        double exact = 0;
        double mag = 0;
        float max = Float.NEGATIVE_INFINITY;
        for (float v : x) {
            exact += v;
            mag += Math.abs(v);
            max = Math.max(max, v);
        }
        assertThat((double) res.trace().get("sum").getFirst().getFloat(0)).isCloseTo(exact, org.assertj.core.data.Offset.offset(len * 0x1p-24 * mag));
        assertThat(res.trace().get("max").getFirst().getFloat(0)).isEqualTo(max);
    }

    @SeededProperty(tries = 20)
    void transcendentalsAreCorrectlyRoundedDoubleValues(long seed) {
        Random r = new Random(seed);
        int n = 1 + r.nextInt(100);
        float[] x = new float[n];
        for (int i = 0; i < n; i++) x[i] = (float) (r.nextGaussian() * 3);
        for (Fn fn : List.of(Fn.EXP, Fn.TANH, Fn.SIGMOID, Fn.SIN, Fn.COS)) {
            RunResult res = Fixtures.program()
                    .input("x", Fixtures.f32(new int[] {n}, x))
                    .buffer("X", DType.F32, n).buffer("y", DType.F32, n)
                    .loadAll("lx", "x", "X", Fixtures.CORE)
                    .generic("f", List.of("X"), "y", Expr.apply(fn, Expr.in(0)))
                    .run(RunOptions.defaults().withTrace(true));
            float[] got = res.trace().get("f").getFirst().toFloats();
            for (int i = 0; i < n; i++) {
                double exact = switch (fn) {
                    case EXP -> Math.exp(x[i]);
                    case TANH -> Math.tanh(x[i]);
                    case SIGMOID -> 1 / (1 + Math.exp(-x[i]));
                    case SIN -> Math.sin(x[i]);
                    case COS -> Math.cos(x[i]);
                    default -> throw new AssertionError(fn + " is not in the list above");
                };
                assertThat((double) got[i]).as("%s(%s)", fn, x[i]).isCloseTo(exact, org.assertj.core.data.Offset.offset(Math.ulp((float) exact) * 0.5 + Math.ulp(exact) * 4));
            }
        }
    }
}
