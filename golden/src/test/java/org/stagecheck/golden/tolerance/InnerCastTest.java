package org.stagecheck.golden.tolerance;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import java.util.SplittableRandom;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.stagecheck.golden.Actuals;
import org.stagecheck.golden.CaseResult;
import org.stagecheck.golden.Golden;
import org.stagecheck.golden.RecordOptions;
import org.stagecheck.golden.store.Manifest;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.numeric.Rounding;

/**
 * A cast to a narrow dtype inside an expression ({@code f32(DT(x * 3)) * 1.25}, output f32): a
 * backend computing in float64 that rounds at the cast to nearest even passes using little of the
 * tolerance, one that truncates at the cast is rejected, and no element is called ill-conditioned
 * merely because it went through a narrow cast.
 */
class InnerCastTest {
    private static final int N = 64;

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"bf16", "f16", "e4m3", "e5m2"})
    void roundingAtTheCastPassesAndTruncationIsRejected(String dtype) throws Exception {
        DType dt = DType.valueOf(dtype.toUpperCase(java.util.Locale.ROOT));
        Program p = EnsembleAdversarialTest.oneGeneric("mul(f32(" + dtype + "(mul(in0, 3.0))), 1.25)", "f32", N);
        float[] x = new float[N];
        SplittableRandom r = new SplittableRandom(7);
        for (int i = 0; i < N; i++) {
            x[i] = (float) r.nextDouble(-2, 2);
        }
        Map<String, Tensor> bound = Map.of("x", Tensor.fromFloats(DType.F32, Shape.of(1, N), x));
        Manifest m = Golden.record(p, bound, Map.of(), RecordOptions.defaults(), tmp.resolve(dtype));
        assertThat(m.warnings()).as("notes").noneMatch(w -> w.contains("ill-conditioned"));

        CaseResult ok = Golden.check(tmp.resolve(dtype), new Actuals.FromTensors(Map.of("y", backend(x, dt, false))));
        assertThat(ok.passed()).as(ok.message()).isTrue();
        assertThat(ok.outputs().getFirst().comparison().minimal().derivedScale()).isLessThanOrEqualTo(0.3);

        CaseResult bad = Golden.check(tmp.resolve(dtype), new Actuals.FromTensors(Map.of("y", backend(x, dt, true))));
        assertThat(bad.passed()).as("truncating at the %s cast passes", dtype).isFalse();
    }

    /** float64 arithmetic, the cast rounded to nearest even (or truncated toward zero), f32 at the output. */
    private static Tensor backend(float[] x, DType dt, boolean truncate) {
        float[] y = new float[x.length];
        for (int i = 0; i < x.length; i++) {
            double v = x[i] * 3.0;
            double c = truncate ? truncate(dt, v) : Rounding.roundTo(dt, (float) v);
            y[i] = (float) (c * 1.25);
        }
        return Tensor.fromFloats(DType.F32, Shape.of(1, x.length), y);
    }

    /** The representable value of {@code dt} next to {@code v} toward zero. */
    private static double truncate(DType dt, double v) {
        float r = Rounding.roundTo(dt, (float) v);
        if (Math.abs(r) <= Math.abs(v)) {
            return r;
        }
        // one step toward zero: the largest representable value below |v|
        double lo = 0;
        double hi = Math.abs(r);
        for (int k = 0; k < 60; k++) {
            double mid = (lo + hi) / 2;
            if (Rounding.roundTo(dt, (float) mid) < Math.abs(r)) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return Math.copySign(Rounding.roundTo(dt, (float) lo), v);
    }
}
