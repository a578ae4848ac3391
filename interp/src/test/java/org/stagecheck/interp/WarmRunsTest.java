package org.stagecheck.interp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stagecheck.interp.Fixtures.dims;
import static org.stagecheck.interp.Fixtures.f32;

import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.stagecheck.backend.RunResult;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.tensor.Tensor;

/**
 * A prepared program run again and again switches its small products from the plain loop to the
 * vector kernel after its first runs (the compiled kernel pays for its warm-up only then): every
 * run, before and after the switch, gives the bits of a fresh traced run, on values whose
 * rounding differs with any other order of the chain.
 */
class WarmRunsTest {
    @ParameterizedTest(name = "B transposed {0}")
    @ValueSource(booleans = {false, true})
    void smallProductsGiveTheSameBitsColdAndWarm(boolean transposeB) {
        SplittableRandom rnd = new SplittableRandom(7);
        float[] x = new float[2 * 24];
        float[] w = new float[24 * 20];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) (rnd.nextDouble(-1, 1) * Math.pow(2, rnd.nextInt(-12, 12)));
        }
        for (int i = 0; i < w.length; i++) {
            w[i] = (float) (rnd.nextDouble(-1, 1) * Math.pow(2, rnd.nextInt(-12, 12)));
        }
        Fixtures f = Fixtures.program()
                .input("x", f32(dims(2, 24), x)).input("w", f32(transposeB ? dims(20, 24) : dims(24, 20), w))
                .output("y", DType.F32, 2, 20)
                .buffer("X", DType.F32, 2, 24).buffer("W", DType.F32, transposeB ? 20 : 24, transposeB ? 24 : 20)
                .buffer("Y", DType.F32, 2, 20)
                .loadAll("lx", "x", "X", Fixtures.CORE).loadAll("lw", "w", "W", Fixtures.CORE)
                .compute("mm", List.of("X", "W"), "Y", new ComputeOp.MatMul(false, transposeB, null, null))
                .storeAll("sy", "Y", "y", Fixtures.CORE);
        Program p = f.build();
        Tensor fresh = new Interpreter(RunOptions.defaults().withTrace(true)).run(p, f.bound(), Map.of()).tensor("y");
        float[] chain = new float[40];
        for (int i = 0; i < 2; i++) {
            for (int j = 0; j < 20; j++) {
                float acc = 0f;
                for (int k = 0; k < 24; k++) {
                    acc = Math.fma(x[i * 24 + k], transposeB ? w[j * 24 + k] : w[k * 20 + j], acc);
                }
                chain[i * 20 + j] = acc;
            }
        }
        assertThat(fresh.toFloats()).containsExactly(chain);
        PreparedProgram prepared = new Interpreter(RunOptions.defaults().withThreads(1)).prepare(p);
        for (int run = 0; run < 40; run++) {
            RunResult r = prepared.run(f.bound(), Map.of());
            assertThat(r.faults()).isEmpty();
            assertThat(r.tensor("y").bitEquals(fresh)).as("run %d", run).isTrue();
        }
    }
}
