package org.stagecheck.golden.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.stagecheck.golden.report.TextReport;
import org.stagecheck.tensor.compare.Comparator;
import org.stagecheck.tensor.compare.Comparison;
import org.stagecheck.tensor.compare.FloatFormat;
import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;

/**
 * The "would pass with" figures ({@link Comparison.Minimal}) are true: re-compared under each
 * figure the output passes, under a strictly tighter one it fails, and the figures the text report
 * prints (shortened) pass too. Shown on failing and passing f32 and bf16 outputs, derived
 * tolerances with infinite and NaN elements, and single elements chosen so that the quotient or
 * difference rounded to nearest (what the figures were before) falls just short.
 */
@Tag("slow")
class MinimalPassingTest {

    /** One comparison: the policy it was judged by and the tolerance the checker would give it. */
    record Subject(String name, Tensor expected, Tensor actual, Policy policy, Tensor tolerance) {
        Comparison compare(Policy p) {
            return Comparator.compare(expected, actual, p, tolerance);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Subject> subjects() {
        return Stream.of(
                f32Failing(), f32OneUlp(), bf16Failing(), bf16OneUlp(), derivedWithInfiniteAndNaNTolerances(),
                nearestQuotientFailsDerived(), nearestQuotientFailsRtol(), nearestDifferenceFailsAtol());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void everyReportedFigurePasses(Subject s) {
        Comparison.Minimal m = s.compare(s.policy()).minimal();
        assertThat(s.compare(new Policy.Ulp(m.ulps())).passed()).as("ulp %d", m.ulps()).isTrue();
        assertThat(s.compare(new Policy.AllClose(0, m.atol())).passed()).as("allclose 0 %s", m.atol()).isTrue();
        if (Double.isFinite(m.rtol())) {
            assertThat(s.compare(new Policy.AllClose(m.rtol(), 0)).passed()).as("allclose %s 0", m.rtol()).isTrue();
        }
        assertThat(s.compare(new Policy.AllClose(m.rtolUsed(), m.atolAtRtol())).passed())
                .as("allclose %s %s", m.rtolUsed(), m.atolAtRtol()).isTrue();
        if (!Double.isNaN(m.pcc())) {
            assertThat(s.compare(new Policy.Pcc(m.pcc())).passed()).as("pcc %s", m.pcc()).isTrue();
        }
        if (s.tolerance() != null && Double.isFinite(m.derivedScale())) {
            // a figure of 0: every positive scale passes
            double scale = m.derivedScale() > 0 ? m.derivedScale() : Double.MIN_VALUE;
            assertThat(s.compare(new Policy.Derived(scale)).passed()).as("derived %s", scale).isTrue();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void aStrictlyTighterFigureFails(Subject s) {
        Comparison.Minimal m = s.compare(s.policy()).minimal();
        if (m.ulps() > 0) {
            assertThat(s.compare(new Policy.Ulp(m.ulps() - 1)).passed()).as("ulp %d", m.ulps() - 1).isFalse();
        }
        if (m.atol() > 0) {
            assertThat(s.compare(new Policy.AllClose(0, Math.nextDown(m.atol()))).passed()).as("allclose 0 just below %s", m.atol()).isFalse();
        }
        if (m.rtol() > 0 && Double.isFinite(m.rtol())) {
            assertThat(s.compare(new Policy.AllClose(m.rtol() * 0.99, 0)).passed()).as("allclose 0.99 * %s 0", m.rtol()).isFalse();
        }
        if (m.atolAtRtol() > 0) {
            assertThat(s.compare(new Policy.AllClose(m.rtolUsed(), m.atolAtRtol() * 0.99)).passed())
                    .as("allclose %s 0.99 * %s", m.rtolUsed(), m.atolAtRtol()).isFalse();
        }
        if (!Double.isNaN(m.pcc()) && m.pcc() < 1) {
            assertThat(s.compare(new Policy.Pcc(Math.nextUp(m.pcc()))).passed()).as("pcc just above %s", m.pcc()).isFalse();
        }
        if (s.tolerance() != null && m.derivedScale() > 0 && Double.isFinite(m.derivedScale())) {
            assertThat(s.compare(new Policy.Derived(m.derivedScale() * 0.99)).passed()).as("derived 0.99 * %s", m.derivedScale()).isFalse();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void everyPrintedFigurePasses(Subject s) {
        String text = TextReport.outputText("t", s.compare(s.policy()));
        String line = text.lines().filter(l -> l.contains("would pass with: ")).findFirst().orElseThrow();
        List<String> spellings = List.of(line.substring(line.indexOf(": ") + 2).split(" \\| "));
        assertThat(spellings).hasSizeGreaterThanOrEqualTo(4);
        for (String spelling : spellings) {
            assertThat(spelling).as("a printed figure a policy cannot spell").doesNotContain("inf");
            if (spelling.startsWith("no derived scale") || spelling.equals("derived 0")) {
                continue; // no such policy passes, or every scale does: checked on the figures above
            }
            assertThat(s.compare(Policy.parse(spelling)).passed()).as("printed '%s' in%n%s", spelling, text).isTrue();
        }
    }

    @Test
    void theRoundingSubjectsFailUnderTheFiguresRoundedToNearest() {
        // what the figures were: the quotient and difference rounded to nearest, printed to nearest
        Subject derived = nearestQuotientFailsDerived();
        double d = Math.abs(derived.actual().getDouble(0) - derived.expected().getDouble(0));
        double tol = derived.tolerance().getDouble(0);
        assertThat(derived.compare(new Policy.Derived(d / tol)).passed()).isFalse();
        double printed = Double.parseDouble(String.format(Locale.ROOT, "%.6g", derived.compare(derived.policy()).minimal().derivedScale()));
        assertThat(derived.compare(new Policy.Derived(printed)).passed()).isFalse();
        Subject rtol = nearestQuotientFailsRtol();
        double dr = Math.abs(rtol.actual().getDouble(0) - rtol.expected().getDouble(0));
        assertThat(rtol.compare(new Policy.AllClose(dr / Math.abs(rtol.expected().getDouble(0)), 0)).passed()).isFalse();
        Subject atol = nearestDifferenceFailsAtol();
        double da = Math.abs(atol.actual().getDouble(0) - atol.expected().getDouble(0));
        double rtolUsed = ((Policy.AllClose) atol.policy()).rtol();
        double p = rtolUsed * Math.abs(atol.expected().getDouble(0));
        assertThat(atol.compare(new Policy.AllClose(rtolUsed, da - p)).passed()).isFalse();
    }

    @Test
    void aNaNToleranceWhereTheValuesDifferLeavesNoDerivedScale() {
        Subject s = derivedWithInfiniteAndNaNTolerances();
        assertThat(s.compare(s.policy()).minimal().derivedScale()).isInfinite();
        assertThat(s.compare(new Policy.Derived(1e300)).passed()).isFalse();
        // an infinite tolerance alone is met by any scale
        Tensor infinite = Tensor.fromDoubles(DType.F32, Shape.of(1), new double[] {Double.POSITIVE_INFINITY});
        Comparison c = Comparator.compare(f32(1f), f32(2f), new Policy.Exact(), infinite);
        assertThat(c.minimal().derivedScale()).isZero();
        assertThat(Comparator.compare(f32(1f), f32(2f), new Policy.Derived(Double.MIN_VALUE), infinite).passed()).isTrue();
        // and does not make other policies fail (0 * inf is no tolerance term)
        assertThat(Comparator.compare(f32(1f), f32(2f), new Policy.AllClose(0, 1), infinite).passed()).isTrue();
        assertThat(Comparator.compare(f32(1f), f32(Math.nextUp(1f)), new Policy.Ulp(1), infinite).passed()).isTrue();
    }

    @Test
    void signedZerosNeedNoDerivedScaleAndANonFiniteMismatchHasNoFigure() {
        Tensor zero = Tensor.fromDoubles(DType.F32, Shape.of(1), new double[] {0});
        assertThat(Comparator.compare(f32(0f), f32(-0f), new Policy.Exact(), zero).minimal().derivedScale()).isZero();
        Comparison nan = Comparator.compare(f32(1f, 2f, 3f), f32(1f, Float.NaN, 3f), new Policy.Exact(), null);
        assertThat(nan.minimal().ulps()).isEqualTo(Long.MAX_VALUE);
        assertThat(nan.minimal().pcc()).isNaN();
        assertThat(TextReport.outputText("t", nan)).contains("would pass with: no tolerance (NaN/Inf disagree)");
    }

    // ---- the subjects ----

    private static Tensor f32(float... v) {
        return Tensor.fromFloats(DType.F32, Shape.of(v.length), v);
    }

    /** Values over six decades, both signs, with a few zeros. */
    private static float[] values(SplittableRandom r, int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = i % 97 == 0 ? 0f : (float) ((r.nextDouble() * 2 - 1) * Math.pow(10, r.nextInt(-3, 4)));
        }
        return v;
    }

    /** A tolerance of {@code ulps} ULPs of each value (at least one subnormal step). */
    private static Tensor ulpTolerance(DType dtype, float[] v, double ulps) {
        FloatFormat f = FloatFormat.of(dtype);
        double[] t = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            t[i] = ulps * f.ulp(v[i]);
        }
        return Tensor.fromDoubles(DType.F32, Shape.of(v.length), t);
    }

    /** Errors from 1e-6 to 1e-2 relative plus a small absolute one: fails every default. */
    private static Subject f32Failing() {
        SplittableRandom r = new SplittableRandom(11);
        float[] e = values(r, 3000);
        float[] a = e.clone();
        for (int i = 0; i < a.length; i++) {
            a[i] = (float) (e[i] * (1 + (r.nextDouble() - 0.5) * Math.pow(10, r.nextInt(-6, -1))) + (r.nextDouble() - 0.5) * 1e-6);
        }
        return new Subject("f32 failing", f32(e), f32(a), new Policy.Exact(), ulpTolerance(DType.F32, e, 8));
    }

    /** Every third element one ULP up: passes its derived tolerance of four ULPs. */
    private static Subject f32OneUlp() {
        SplittableRandom r = new SplittableRandom(12);
        float[] e = values(r, 3000);
        float[] a = e.clone();
        for (int i = 0; i < a.length; i += 3) {
            a[i] = Math.nextUp(e[i]);
        }
        return new Subject("f32 one ulp", f32(e), f32(a), new Policy.Derived(1), ulpTolerance(DType.F32, e, 4));
    }

    private static Tensor bf16(float[] v) {
        return Tensor.fromFloats(DType.BF16, Shape.of(v.length), v);
    }

    /** bf16 values stepped up by 1 to 40 bf16 ULPs: fails the bf16 default allclose. */
    private static Subject bf16Failing() {
        SplittableRandom r = new SplittableRandom(13);
        float[] e = bf16(values(r, 2000)).toFloats();
        float[] a = e.clone();
        for (int i = 0; i < a.length; i++) {
            a[i] = bf16Step(e[i], r.nextInt(0, 41));
        }
        return new Subject("bf16 failing", bf16(e), bf16(a), new Policy.DefaultAllClose(), ulpTolerance(DType.BF16, e, 2));
    }

    /** bf16 values, every other one a bf16 ULP up: passes the bf16 default allclose. */
    private static Subject bf16OneUlp() {
        SplittableRandom r = new SplittableRandom(14);
        float[] e = bf16(values(r, 2000)).toFloats();
        float[] a = e.clone();
        for (int i = 0; i < a.length; i += 2) {
            a[i] = bf16Step(e[i], 1);
        }
        return new Subject("bf16 one ulp", bf16(e), bf16(a), new Policy.DefaultAllClose(), ulpTolerance(DType.BF16, e, 2));
    }

    /**
     * {@code x} (a bf16 value) moved up by {@code steps} representable bf16 values: a bf16 value
     * is a float's upper 16 bits, so the next one up counts those bits up (down for a negative
     * value; from -0 to the smallest positive one).
     */
    private static float bf16Step(float x, int steps) {
        float y = x;
        for (int k = 0; k < steps; k++) {
            int bits = Float.floatToRawIntBits(y);
            y = Float.intBitsToFloat(bits == 0x8000_0000 ? 0x0001_0000 : bits < 0 ? bits - 0x1_0000 : bits + 0x1_0000);
        }
        return y;
    }

    /** A derived case whose tolerance is infinite at some elements and NaN at one element that differs. */
    private static Subject derivedWithInfiniteAndNaNTolerances() {
        SplittableRandom r = new SplittableRandom(15);
        float[] e = values(r, 500);
        float[] a = e.clone();
        double[] t = new double[e.length];
        FloatFormat f = FloatFormat.of(DType.F32);
        for (int i = 0; i < e.length; i++) {
            a[i] = (float) (e[i] + (r.nextDouble() - 0.5) * 6 * f.ulp(e[i]));
            t[i] = i % 50 == 7 ? Double.POSITIVE_INFINITY : 4 * f.ulp(e[i]);
        }
        a[3] = Math.nextUp(e[3]);
        t[3] = Double.NaN;
        return new Subject("derived, inf and NaN tolerances", f32(e), f32(a), new Policy.Derived(1), Tensor.fromDoubles(DType.F32, Shape.of(e.length), t));
    }

    /** One element whose error over its tolerance, rounded to nearest and printed to nearest, both fall short. */
    private static Subject nearestQuotientFailsDerived() {
        SplittableRandom r = new SplittableRandom(16);
        for (int tries = 0; tries < 1_000_000; tries++) {
            float e = (float) r.nextDouble(0.5, 4);
            float a = e + (float) r.nextDouble(1e-6, 1e-3);
            float tol = (float) r.nextDouble(1e-7, 1e-3);
            double d = Math.abs((double) a - e);
            double q = d / tol;
            double up = q * tol < d ? Math.nextUp(q) : q;
            double printed = Double.parseDouble(String.format(Locale.ROOT, "%.6g", up));
            if (q * tol < d && printed * tol < d) {
                Tensor t = Tensor.fromDoubles(DType.F32, Shape.of(2), new double[] {tol, tol});
                return new Subject("derived quotient rounded down", f32(e, 1f), f32(a, 1f), new Policy.Derived(1), t);
            }
        }
        throw new IllegalStateException("no element found whose quotient rounds down");
    }

    /** One element whose relative error rounded to nearest falls short of it. */
    private static Subject nearestQuotientFailsRtol() {
        SplittableRandom r = new SplittableRandom(17);
        for (int tries = 0; tries < 1_000_000; tries++) {
            float e = (float) r.nextDouble(0.5, 4);
            float a = e + (float) r.nextDouble(1e-6, 1e-3);
            double d = Math.abs((double) a - e);
            if ((d / e) * e < d) {
                return new Subject("rtol quotient rounded down", f32(e, 1f), f32(a, 1f), new Policy.Exact(), null);
            }
        }
        throw new IllegalStateException("no element found whose quotient rounds down");
    }

    /**
     * One element whose error less the RTOL term, rounded to nearest, falls short of it. With two
     * f32 values the error has too few bits for that; it takes values held in double (as a
     * comparison of tensors computed in double may have) and two rounding ties: the error
     * d = 1.5 + 2^-52 less p = 0.25 + 2^-53 is halfway between two doubles and rounds down to even
     * (1.25), and 1.25 + p is halfway again and rounds down to 1.5, below d.
     */
    private static Subject nearestDifferenceFailsAtol() {
        double rtol = 0.25 + 0x1p-53;
        Tensor e = Tensor.fromDoubles(DType.F32, Shape.of(2), new double[] {-1, 1});
        Tensor a = Tensor.fromDoubles(DType.F32, Shape.of(2), new double[] {0.5 + 0x1p-52, 1});
        return new Subject("atol difference rounded down", e, a, new Policy.AllClose(rtol, 0), null);
    }

    /** The subjects hold what they are named for (a check on this test's data, not on the comparator). */
    @Test
    void theSubjectsFailAndPassAsNamed() {
        List<String> failing = new ArrayList<>();
        subjects().filter(s -> !s.compare(s.policy()).passed()).forEach(s -> failing.add(s.name()));
        assertThat(failing).contains("f32 failing", "bf16 failing").doesNotContain("f32 one ulp", "bf16 one ulp");
    }
}
