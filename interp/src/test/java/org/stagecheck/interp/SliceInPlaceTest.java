package org.stagecheck.interp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stagecheck.interp.Fixtures.dims;
import static org.stagecheck.interp.Fixtures.f32;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.stagecheck.backend.RunResult;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.tensor.Tensor;

/**
 * A Slice of a window of its input is that window's value whether the evaluator copies it or
 * leaves it in place (a matmul multiplies a window of a KV cache where it lies): a matmul reading
 * it as B (plain and transposed), a Generic reading it, a Store to the sliced tensor after the
 * slice, traced or not, f32 or float64, and a prepared program run again on other values.
 */
class SliceInPlaceTest {
    /** kv [4, 6] (state, bound), its columns 2..4 sliced; x [1, 4], q [1, 3]. */
    private static Fixtures program(Tensor kv, Tensor x, Tensor q) {
        return Fixtures.program()
                .tensor("kv", TensorRole.STATE, 0, kv)
                .input("x", x).input("q", q)
                .output("y", DType.F32, 1, 3).output("s", DType.F32, 1, 4).output("c", DType.F32, 4, 3)
                .buffer("KV", DType.F32, 4, 6).buffer("W", DType.F32, 4, 3).buffer("X", DType.F32, 1, 4)
                .buffer("Q", DType.F32, 1, 3).buffer("Z", DType.F32, 4, 6)
                .buffer("Y", DType.F32, 1, 3).buffer("S", DType.F32, 1, 4).buffer("C", DType.F32, 4, 3)
                .loadAll("lkv", "kv", "KV", Fixtures.CORE)
                .loadAll("lx", "x", "X", Fixtures.CORE)
                .loadAll("lq", "q", "Q", Fixtures.CORE)
                .compute("win", List.of("KV"), "W", new ComputeOp.Slice(List.of(0, 2)))
                // overwrite the whole cache after the slice: the window keeps the values of before
                .generic("neg", List.of(), "Z", Expr.f(-1.0))
                .storeAll("skv", "Z", "kv", Fixtures.CORE)
                .compute("xw", List.of("X", "W"), "Y", new ComputeOp.MatMul(false, false, null, null))
                .compute("qwt", List.of("Q", "W"), "S", new ComputeOp.MatMul(false, true, null, null))
                .generic("twice", List.of("W"), "C", Expr.apply(Fn.MUL, Expr.in(0), Expr.f(2.0)))
                .storeAll("sy", "Y", "y", Fixtures.CORE)
                .storeAll("ss", "S", "s", Fixtures.CORE)
                .storeAll("sc", "C", "c", Fixtures.CORE);
    }

    private static float[] kvValues(int seed) {
        float[] v = new float[24];
        for (int i = 0; i < v.length; i++) {
            v[i] = 6 * (i / 6) + i % 6 + seed; // kv[r][c] = 6r + c + seed
        }
        return v;
    }

    @ParameterizedTest(name = "trace {0}, float64 {1}")
    @CsvSource({"false,false", "true,false", "false,true", "true,true"})
    void aSlicedWindowIsTheWindowOfTheInputAtTheTimeOfTheSlice(boolean trace, boolean float64) {
        RunOptions options = RunOptions.defaults().withTrace(trace).withPrecision(float64 ? Precision.F64 : Precision.F32);
        Interpreter interp = new Interpreter(options);
        Fixtures f = program(f32(dims(4, 6), kvValues(0)), f32(dims(1, 4), 1, 2, 3, 4), f32(dims(1, 3), 1, -1, 2));
        Program p = f.build();
        PreparedProgram prepared = interp.prepare(p);
        for (int seed = 0; seed < 3; seed++) {
            Tensor kv = f32(dims(4, 6), kvValues(seed));
            Map<String, Tensor> bound = Map.of("kv", kv, "x", f32(dims(1, 4), 1, 2, 3, 4), "q", f32(dims(1, 3), 1, -1, 2));
            RunResult r = prepared.run(bound, Map.of());
            assertThat(r.faults()).isEmpty();
            float[] w = new float[12]; // the window: w[r][j] = kv[r][2 + j]
            for (int row = 0; row < 4; row++) {
                for (int j = 0; j < 3; j++) {
                    w[row * 3 + j] = 6 * row + 2 + j + seed;
                }
            }
            float[] y = new float[3];
            for (int j = 0; j < 3; j++) {
                for (int k = 0; k < 4; k++) {
                    y[j] += (k + 1) * w[k * 3 + j];
                }
            }
            float[] s = new float[4];
            float[] q = {1, -1, 2};
            for (int row = 0; row < 4; row++) {
                for (int j = 0; j < 3; j++) {
                    s[row] += q[j] * w[row * 3 + j];
                }
            }
            float[] c = new float[12];
            for (int e = 0; e < 12; e++) {
                c[e] = 2 * w[e];
            }
            assertThat(r.tensor("y").toFloats()).as("seed %d", seed).containsExactly(y);
            assertThat(r.tensor("s").toFloats()).as("seed %d", seed).containsExactly(s);
            assertThat(r.tensor("c").toFloats()).as("seed %d", seed).containsExactly(c);
            assertThat(r.tensor("kv").toFloats()).containsOnly(-1f);
            assertThat(kv.toFloats()).as("the caller's cache is not changed").containsExactly(kvValues(seed));
        }
    }
}
