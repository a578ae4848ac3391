package org.stagecheck.tensor.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;

class ComparatorTest {

    private static Tensor f32(float... v) {
        return Tensor.fromFloats(DType.F32, Shape.of(v.length), v);
    }

    private static float[] ramp(int n) {
        float[] v = new float[n];
        SplittableRandom r = new SplittableRandom(3);
        for (int i = 0; i < n; i++) {
            v[i] = (float) (r.nextDouble() * 4 - 2);
        }
        return v;
    }

    private static Tensor withElement(DType dtype, float[] v, int i, float value) {
        float[] w = v.clone();
        w[i] = value;
        return Tensor.fromFloats(dtype, Shape.of(w.length), w);
    }

    /** The value {@code ulps} steps above {@code x} in {@code dtype}. */
    private static float stepUp(DType dtype, float x, int ulps) {
        float y = x;
        for (int k = 0; k < ulps; k++) {
            float next = Math.nextUp(y);
            while (Tensor.fromFloats(dtype, Shape.of(1), new float[] {next}).getFloat(0) == y) {
                next = Math.nextUp(next);
            }
            y = Tensor.fromFloats(dtype, Shape.of(1), new float[] {next}).getFloat(0);
        }
        return y;
    }

    @Test
    void exactPassesIdenticalAndFailsOneUlpAndSignedZero() {
        float[] v = ramp(100);
        Tensor e = f32(v);
        assertThat(Comparator.compare(e, f32(v), new Policy.Exact()).passed()).isTrue();
        Comparison c = Comparator.compare(e, withElement(DType.F32, v, 17, Math.nextUp(v[17])), new Policy.Exact());
        assertThat(c.passed()).isFalse();
        assertThat(c.mismatches()).isEqualTo(1);
        assertThat(c.maxAbs().flatIndex()).isEqualTo(17);
        assertThat(c.maxAbs().ulps()).isEqualTo(1);
        assertThat(Comparator.compare(f32(0f), f32(-0f), new Policy.Exact()).passed()).isFalse();
    }

    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"F32", "BF16", "F16"})
    void ulpPassesAtTheLimitAndFailsOneBeyond(DType dtype) {
        float[] v = Tensor.fromFloats(dtype, Shape.of(64), ramp(64)).toFloats();
        Tensor e = Tensor.fromFloats(dtype, Shape.of(64), v);
        Tensor atLimit = withElement(dtype, v, 5, stepUp(dtype, v[5], 3));
        Tensor beyond = withElement(dtype, v, 5, stepUp(dtype, v[5], 4));
        assertThat(Comparator.compare(e, atLimit, new Policy.Ulp(3)).passed()).isTrue();
        Comparison c = Comparator.compare(e, beyond, new Policy.Ulp(3));
        assertThat(c.passed()).isFalse();
        assertThat(c.minimal().ulps()).isEqualTo(4);
        assertThat(c.maxAbs().index()).containsExactly(5L);
    }

    @Test
    void ulpDistanceCrossesZero() {
        float tiny = Float.MIN_VALUE;
        Comparison c = Comparator.compare(f32(tiny), f32(-tiny), new Policy.Ulp(1));
        assertThat(c.minimal().ulps()).isEqualTo(2);
        assertThat(c.passed()).isFalse();
        assertThat(Comparator.compare(f32(tiny), f32(-tiny), new Policy.Ulp(2)).passed()).isTrue();
    }

    @Test
    void allcloseBoundaryIsInclusiveAndOneToleranceBeyondFails() {
        double rtol = 1e-3;
        double atol = 1e-4;
        float e = 2.0f;
        float limit = (float) (e + atol + rtol * e);
        // the largest f32 within the bound passes, the next one up fails
        float inside = limit;
        while (inside - e > atol + rtol * e) {
            inside = Math.nextDown(inside);
        }
        assertThat(Comparator.compare(f32(1, e), f32(1, inside), new Policy.AllClose(rtol, atol)).passed()).isTrue();
        assertThat(Comparator.compare(f32(1, e), f32(1, Math.nextUp(inside)), new Policy.AllClose(rtol, atol)).passed()).isFalse();
        float beyond = (float) (e + 2 * (atol + rtol * e));
        Comparison c = Comparator.compare(f32(1, e), f32(1, beyond), new Policy.AllClose(rtol, atol));
        assertThat(c.passed()).isFalse();
        assertThat(c.minimal().atolAtRtol()).isCloseTo(beyond - e - rtol * e, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(c.minimal().atol()).isEqualTo((double) beyond - e);
        assertThat(c.minimal().rtol()).isEqualTo(((double) beyond - e) / e);
    }

    @Test
    void allcloseDefaultsAreTorchsPerDtype() {
        assertThat(Policy.parse("allclose").resolve(DType.F32)).isEqualTo(new Policy.AllClose(1.3e-6, 1e-5));
        assertThat(Policy.parse("allclose").resolve(DType.BF16)).isEqualTo(new Policy.AllClose(1.6e-2, 1e-5));
        assertThat(Policy.parse("allclose").resolve(DType.F16)).isEqualTo(new Policy.AllClose(1e-3, 1e-5));
        assertThat(Policy.parse("allclose").resolve(DType.I32)).isEqualTo(new Policy.AllClose(0, 0));
        // i32 under its default allclose is exact
        Tensor a = Tensor.fromInts(Shape.of(2), new int[] {5, 6});
        assertThat(Comparator.compare(a, Tensor.fromInts(Shape.of(2), new int[] {5, 7}), Policy.parse("allclose")).passed()).isFalse();
    }

    @Test
    void pccPassesCorrelatedDataAndFailsBelowThreshold() {
        float[] v = ramp(1000);
        float[] noisy = v.clone();
        SplittableRandom r = new SplittableRandom(9);
        for (int i = 0; i < noisy.length; i++) {
            noisy[i] += (float) (r.nextGaussian() * 0.05);
        }
        Comparison c = Comparator.compare(f32(v), f32(noisy), new Policy.Pcc(0.99));
        assertThat(c.passed()).isTrue();
        assertThat(c.pcc()).isBetween(0.99, 1.0);
        Comparison strict = Comparator.compare(f32(v), f32(noisy), new Policy.Pcc(0.99999));
        assertThat(strict.passed()).isFalse();
        assertThat(strict.minimal().pcc()).isEqualTo(c.pcc());
    }

    @Test
    void pccNeverPassesConstantOrZeroDataFalsely() {
        float[] zeros = new float[50];
        float[] ones = new float[50];
        java.util.Arrays.fill(ones, 1f);
        float[] twos = new float[50];
        java.util.Arrays.fill(twos, 2f);
        float[] v = ramp(50);
        assertThat(Comparator.compare(f32(ones), f32(twos), new Policy.Pcc(0.9)).passed()).isFalse();
        assertThat(Comparator.compare(f32(v), f32(zeros), new Policy.Pcc(0.0)).passed()).isFalse();
        assertThat(Comparator.compare(f32(zeros), f32(v), new Policy.Pcc(-1)).passed()).isFalse();
        Comparison same = Comparator.compare(f32(zeros), f32(zeros), new Policy.Pcc(0.99));
        assertThat(same.pcc()).isNaN();
        assertThat(same.problem()).contains("undefined");
        assertThat(same.passed()).isTrue();
        // a scaled copy correlates perfectly, yet differs: pcc says so, allclose does not pass
        float[] scaled = v.clone();
        for (int i = 0; i < scaled.length; i++) {
            scaled[i] *= 3;
        }
        assertThat(Comparator.compare(f32(v), f32(scaled), new Policy.Pcc(0.999)).pcc()).isGreaterThan(0.9999);
        assertThat(Comparator.compare(f32(v), f32(scaled), Policy.parse("allclose")).passed()).isFalse();
    }

    @Test
    void pccOfConstantDataWithLargeOffsetIsUndefinedNotNoise() {
        float[] c = new float[Comparator.CHUNK * 3 + 7];
        java.util.Arrays.fill(c, 0.1f);
        float[] d = c.clone();
        d[5] = Math.nextUp(0.1f);
        Comparison r = Comparator.compare(f32(c), f32(d), new Policy.Pcc(0.5));
        assertThat(r.pcc()).isNaN();
        assertThat(r.passed()).isTrue(); // one ULP is within the f32 allclose default
    }

    @ParameterizedTest
    @ValueSource(strings = {"exact", "ulp 1000", "allclose 1 1", "pcc -1", "derived 1000"})
    void noPolicyPassesNaNAgainstANumberOrInfOfTheOtherSign(String spelling) {
        Policy p = Policy.parse(spelling);
        float[] v = ramp(40);
        Tensor tol = Tensor.fromDoubles(DType.F32, Shape.of(40), filled(40, Double.POSITIVE_INFINITY));
        Tensor e = f32(v);
        for (float bad : new float[] {Float.NaN}) {
            Comparison c = Comparator.compare(e, withElement(DType.F32, v, 3, bad), p, tol);
            assertThat(c.passed()).as(spelling).isFalse();
            assertThat(c.nonFiniteMismatches()).isEqualTo(1);
            assertThat(c.problem()).contains("NaN/Inf");
        }
        Tensor plusInf = withElement(DType.F32, v, 3, Float.POSITIVE_INFINITY);
        assertThat(Comparator.compare(plusInf, withElement(DType.F32, v, 3, Float.NEGATIVE_INFINITY), p, tol).passed()).isFalse();
        assertThat(Comparator.compare(withElement(DType.F32, v, 3, Float.NaN), e, p, tol).passed()).isFalse();
        // the same non-finite pattern on both sides agrees
        assertThat(Comparator.compare(plusInf, plusInf, p, tol).passed()).isTrue();
    }

    @Test
    void nanAgainstNanAgreesExceptThatExactWantsTheSameBits() {
        Tensor a = f32(1, Float.NaN);
        Tensor b = f32(1, Float.intBitsToFloat(0x7fc00001));
        assertThat(Comparator.compare(a, b, new Policy.Ulp(0)).passed()).isTrue();
        assertThat(Comparator.compare(a, b, new Policy.Exact()).passed()).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"exact", "ulp 1", "allclose", "pcc 0.9", "derived"})
    void emptyTensorsPassOnlyWherePassingMeansSomething(String spelling) {
        Tensor empty = Tensor.fromFloats(DType.F32, Shape.of(0, 4), new float[0]);
        Tensor tol = Tensor.fromDoubles(DType.F32, Shape.of(0, 4), new double[0]);
        Policy p = Policy.parse(spelling);
        Comparison c = Comparator.compare(empty, empty, p, tol);
        assertThat(c.passed()).isEqualTo(!(p instanceof Policy.Pcc));
        // empty against non-empty is a shape mismatch under every policy
        assertThat(Comparator.compare(f32(1, 2), Tensor.fromFloats(DType.F32, Shape.of(0), new float[0]), p, tol).passed()).isFalse();
        assertThat(Comparator.compare(Tensor.fromFloats(DType.F32, Shape.of(0), new float[0]), f32(1), p, tol).passed()).isFalse();
    }

    @Test
    void derivedUsesThePerElementToleranceAndOneBeyondFails() {
        float[] v = ramp(10);
        double[] tol = filled(10, 1e-3);
        tol[4] = 1e-6;
        Tensor t = Tensor.fromDoubles(DType.F32, Shape.of(10), tol);
        // element 0 is off by half its tolerance, element 4 just within its smaller one
        float[] w = v.clone();
        w[0] += 5e-4f;
        w[4] = (float) (v[4] + 0.9e-6);
        Comparison ok = Comparator.compare(f32(v), f32(w), new Policy.Derived(1), t);
        assertThat(ok.passed()).isTrue();
        assertThat(ok.minimal().derivedScale()).isBetween(0.5, 1.0);
        float[] x = w.clone();
        x[4] = (float) (v[4] + 2.1e-6);
        Comparison bad = Comparator.compare(f32(v), f32(x), new Policy.Derived(1), t);
        assertThat(bad.passed()).isFalse();
        assertThat(bad.mismatches()).isEqualTo(1);
        assertThat(bad.minimal().derivedScale()).isGreaterThan(2.0);
        assertThat(Comparator.compare(f32(v), f32(x), new Policy.Derived(3), t).passed()).isTrue();
        assertThat(Comparator.compare(f32(v), f32(x), new Policy.Derived(1)).problem()).contains("needs the per-element tolerance");
    }

    @Test
    void shapeAndDtypeMismatchesFailWithAProblem() {
        Comparison s = Comparator.compare(f32(1, 2), Tensor.fromFloats(DType.F32, Shape.of(1, 2), new float[] {1, 2}), new Policy.Exact());
        assertThat(s.passed()).isFalse();
        assertThat(s.problem()).isEqualTo("shape differs: expected [2], actual [1, 2]");
        assertThat(s.summary()).isEqualTo("FAIL [exact] f32[2]: shape differs: expected [2], actual [1, 2]; no element compared");
        Comparison d = Comparator.compare(f32(1, 2), Tensor.fromFloats(DType.BF16, Shape.of(2), new float[] {1, 2}), new Policy.Exact());
        assertThat(d.problem()).isEqualTo("dtype differs: expected f32, actual bf16");
    }

    @Test
    void statisticsNameTheWorstElementHistogramAndDoNotDependOnChunking() {
        int n = 11 * 15000; // six chunks, the last one partial
        float[] v = ramp(n);
        float[] w = v.clone();
        SplittableRandom r = new SplittableRandom(1);
        for (int i = 0; i < n; i += 7) {
            w[i] = stepUp(DType.F32, v[i], 1 + r.nextInt(3));
        }
        w[Comparator.CHUNK * 3 + 2] = v[Comparator.CHUNK * 3 + 2] + 0.5f;
        Tensor e = Tensor.fromFloats(DType.F32, Shape.of(n / 11, 11), v);
        Tensor a = Tensor.fromFloats(DType.F32, Shape.of(n / 11, 11), w);
        Comparison c = Comparator.compare(e, a, new Policy.Ulp(3));
        long worst = Comparator.CHUNK * 3 + 2;
        assertThat(c.maxAbs().flatIndex()).isEqualTo(worst);
        assertThat(c.maxAbs().index()).containsExactly(worst / 11, worst % 11);
        assertThat(c.maxAbs().expected()).isEqualTo(v[(int) worst]);
        assertThat(c.maxAbs().actual()).isEqualTo(w[(int) worst]);
        assertThat(c.mismatches()).isEqualTo(1);
        long total = c.ulpHistogram().stream().mapToLong(Comparison.UlpBucket::count).sum();
        assertThat(total).isEqualTo(n);
        assertThat(c.ulpHistogram().get(0)).isEqualTo(new Comparison.UlpBucket(0, 0, n - (n + 6) / 7 - 1));
        // the generic (element-by-element) path agrees with the f32 fast path on every figure
        Tensor e64 = Tensor.fromDoubles(DType.F32, e.shape(), e.toDoubles());
        Tensor a64 = Tensor.fromDoubles(DType.F32, a.shape(), a.toDoubles());
        Comparison g = Comparator.compare(e64, a64, new Policy.Ulp(3));
        assertThat(g.mismatches()).isEqualTo(c.mismatches());
        assertThat(g.ulpHistogram()).isEqualTo(c.ulpHistogram());
        assertThat(g.maxAbs()).isEqualTo(c.maxAbs());
        assertThat(g.pcc()).isCloseTo(c.pcc(), org.assertj.core.data.Offset.offset(1e-12));
    }

    @Test
    void pccMatchesTheTextbookFormula() {
        float[] v = ramp(5000);
        float[] w = ramp(5000);
        for (int i = 0; i < w.length; i++) {
            w[i] = v[i] + 0.3f * w[(i * 7) % w.length] + 100f;
        }
        double me = 0;
        double ma = 0;
        for (int i = 0; i < v.length; i++) {
            me += v[i];
            ma += w[i];
        }
        me /= v.length;
        ma /= v.length;
        double c = 0;
        double se = 0;
        double sa = 0;
        for (int i = 0; i < v.length; i++) {
            c += (v[i] - me) * (w[i] - ma);
            se += (v[i] - me) * (v[i] - me);
            sa += (w[i] - ma) * (w[i] - ma);
        }
        assertThat(Comparator.compare(f32(v), f32(w), new Policy.Pcc(0)).pcc())
                .isCloseTo(c / Math.sqrt(se * sa), org.assertj.core.data.Offset.offset(1e-12));
    }

    @Test
    void policiesParseAndSpellRoundTrip() {
        for (String s : List.of("exact", "ulp 2", "allclose 0.001 1e-5", "pcc 0.999", "derived", "derived 2")) {
            assertThat(Policy.parse(s).spelling()).isEqualTo(s);
            assertThat(Policy.parse(Policy.parse(s).spelling())).isEqualTo(Policy.parse(s));
        }
        assertThat(Policy.parse("ulp:4")).isEqualTo(new Policy.Ulp(4));
        assertThatThrownBy(() -> Policy.parse("close 1")).hasMessageContaining("unknown tolerance policy 'close'");
        assertThatThrownBy(() -> Policy.parse("ulp x")).hasMessage("tolerance policy 'ulp x': N must be a whole number at least 0"
                + " and at most 9223372036854775807, not 'x'");
        assertThatThrownBy(() -> Policy.parse("ulp -1")).hasMessageContaining("at least 0");
        assertThatThrownBy(() -> Policy.parse("pcc 2")).hasMessageContaining("[-1, 1]");
        assertThatThrownBy(() -> Policy.parse("allclose 1")).hasMessageContaining("both RTOL and ATOL");
    }

    @Test
    void policyNumbersThatMeanNothingAreRefusedNamingThePolicyAndWhatTheNumberMustBe() {
        assertThatThrownBy(() -> Policy.parse("pcc NaN")).hasMessage("tolerance policy 'pcc NaN': MIN must be a correlation in [-1, 1], not 'nan'");
        assertThatThrownBy(() -> Policy.parse("pcc Infinity")).hasMessageContaining("MIN must be a correlation in [-1, 1]");
        assertThatThrownBy(() -> Policy.parse("allclose nan 1e-8")).hasMessageContaining("'allclose nan 1e-8': RTOL must be a finite number at least 0");
        assertThatThrownBy(() -> Policy.parse("allclose 1e-3 -1")).hasMessageContaining("ATOL must be a finite number at least 0, not '-1'");
        assertThatThrownBy(() -> Policy.parse("allclose 1e-3 1e999")).hasMessageContaining("ATOL must be a finite number");
        assertThatThrownBy(() -> Policy.parse("derived infinity")).hasMessageContaining("SCALE must be a finite number above 0");
        assertThatThrownBy(() -> Policy.parse("derived 0x1p3")).hasMessageContaining("SCALE must be");
        assertThatThrownBy(() -> Policy.parse("ulp 99999999999999999999")).hasMessageContaining("N must be a whole number");
        assertThatThrownBy(() -> Policy.parse("ulp 1.5")).hasMessageContaining("N must be a whole number");
        for (String bad : List.of("pcc nan", "ulp 99999999999999999999", "allclose 1f 2d", "derived x")) {
            assertThatThrownBy(() -> Policy.parse(bad)).hasMessageNotContaining("For input string");
        }
        assertThat(Policy.parse("pcc -1")).isEqualTo(new Policy.Pcc(-1));
        assertThat(Policy.parse("allclose .5 +2e-3")).isEqualTo(new Policy.AllClose(0.5, 2e-3));
    }

    private static double[] filled(int n, double v) {
        double[] d = new double[n];
        java.util.Arrays.fill(d, v);
        return d;
    }
}
