package org.stagecheck.interp.accuracy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stagecheck.interp.Fixtures.CORE;

import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.stagecheck.backend.RunResult;
import org.stagecheck.interp.Fixtures;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.json.ExprSyntax;
import org.stagecheck.tensor.Tensor;

/**
 * The corners {@link IndependentOracleTest} left: float {@code rem} against an exact BigDecimal
 * remainder, {@code recip}/{@code sin}/{@code cos} at zeros, infinities and the f32 extremes,
 * i32 faults and wrap-around outside Generic's {@code div}, the documented double rounding of an
 * i32 cast to bf16, one-element and signed-zero reductions, argmax ties, a fully masked softmax,
 * and where a MatMul's bias and spill enter its chain (catastrophic cancellation makes each order
 * visible). Expected values are worked here from docs/semantics.md, not from the evaluator.
 * A little over 300 lines: one short test per corner with its worked values, sharing three
 * program helpers; split by area they would each need their own copy.
 */
class OracleCornersTest {

    private static RunResult generic(String expr, DType out, Tensor... inputs) {
        Fixtures p = Fixtures.program();
        List<String> ins = new java.util.ArrayList<>();
        for (int i = 0; i < inputs.length; i++) {
            int n = (int) inputs[i].shape().elementCount();
            p.input("t" + i, inputs[i]).buffer("b" + i, inputs[i].dtype(), n).loadAll("l" + i, "t" + i, "b" + i, CORE);
            ins.add("b" + i);
        }
        p.buffer("o", out, (int) inputs[0].shape().elementCount());
        try {
            p.generic("g", ins, "o", ExprSyntax.parse(expr));
        } catch (Exception e) {
            throw new IllegalArgumentException(expr, e);
        }
        return p.run();
    }

    private static float[] floats(String expr, Tensor... inputs) {
        RunResult r = generic(expr, DType.F32, inputs);
        assertThat(r.faults()).as(expr).isEmpty();
        return r.trace().get("g").getFirst().toFloats();
    }

    private static Tensor f32(float... v) {
        return Tensor.fromFloats(DType.F32, Shape.of(v.length), v);
    }

    private static Tensor i32(int... v) {
        return Tensor.fromInts(Shape.of(v.length), v);
    }

    private static void assertBits(float actual, double expected, String what) {
        if (Double.isNaN(expected)) {
            assertThat(actual).as(what).isNaN();
        } else {
            assertThat(Float.floatToIntBits(actual)).as(what + ": " + actual + " vs " + (float) expected).isEqualTo(Float.floatToIntBits((float) expected));
        }
    }

    /** C's fmod, exactly: x - trunc(x / y) * y in BigDecimal, the sign of x, NaN for y = 0 or infinite x, x for infinite y. */
    private static double fmod(float x, float y) {
        if (Float.isNaN(x) || Float.isNaN(y) || Float.isInfinite(x) || y == 0) {
            return Double.NaN;
        }
        if (Float.isInfinite(y) || x == 0) {
            return x;
        }
        BigDecimal bx = new BigDecimal(x);
        BigDecimal by = new BigDecimal(y);
        BigDecimal q = bx.divideToIntegralValue(by);
        BigDecimal r = bx.subtract(q.multiply(by));
        return r.signum() == 0 ? Math.copySign(0.0, x) : r.doubleValue();
    }

    @Test
    void floatRemainderIsTheExactTruncatedRemainderWithTheDividendsSign() {
        float[] x = {5.5f, -5.5f, 5.5f, -0f, 0f, 1e30f, 1e-40f, 7f, Float.POSITIVE_INFINITY, 3f, 3f, Float.NaN, 16777217f, 0x1.fffffep127f, -2f};
        float[] y = {2f, 2f, -2f, 3f, 0f, 3f, 3e-41f, Float.NEGATIVE_INFINITY, 1f, 0f, -0f, 1f, 0.1f, 0x1p-149f, 2f};
        float[] actual = floats("rem(in0, in1)", f32(x), f32(y));
        for (int i = 0; i < x.length; i++) {
            assertBits(actual[i], fmod(x[i], y[i]), "rem(" + x[i] + ", " + y[i] + ")");
        }
    }

    @Test
    void integerRemainderByZeroFaultsInAGenericAsDivisionDoesAndSoDoesTheUnchosenSelectBranch() {
        assertThat(generic("rem(in0, in1)", DType.I32, i32(7, 7), i32(2, 0)).faults()).extracting(d -> d.code()).containsExactly("DIV_BY_ZERO");
        // both branches are evaluated (documented, as in XLA): the division the select would discard still faults
        assertThat(generic("select(eq(in1, 0), 0, div(in0, in1))", DType.I32, i32(7), i32(0)).faults()).extracting(d -> d.code())
                .containsExactly("DIV_BY_ZERO");
        // the documented guard does not
        RunResult guarded = generic("div(in0, select(eq(in1, 0), 1, in1))", DType.I32, i32(7, Integer.MIN_VALUE), i32(0, -1));
        assertThat(guarded.faults()).isEmpty();
        assertThat(guarded.trace().get("g").getFirst().toInts()).containsExactly(7, Integer.MIN_VALUE);
    }

    @Test
    void recipSinAndCosAtZerosInfinitiesAndTheF32Extremes() {
        float[] x = {0f, -0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN, Float.MIN_VALUE, -Float.MIN_VALUE, Float.MAX_VALUE,
                Float.MIN_NORMAL, 3f, 0x1p126f, 0x1p127f};
        float[] recip = floats("recip(in0)", f32(x));
        // 1/MIN_VALUE = 2^149 is past the largest f32: Inf; 1/MAX_VALUE is an f32 subnormal; 1/2^127 = 2^-127 is one too, exactly
        double[] expected = {Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0.0, -0.0, Double.NaN, Double.POSITIVE_INFINITY,
                Double.NEGATIVE_INFINITY, (float) (1 / (double) Float.MAX_VALUE), 0x1p126, (float) (1.0 / 3), 0x1p-126, 0x1p-127};
        for (int i = 0; i < x.length; i++) {
            assertBits(recip[i], expected[i], "recip(" + x[i] + ")");
        }
        assertThat(recip[7]).isPositive().isLessThan(Float.MIN_NORMAL);
        float[] sin = floats("sin(in0)", f32(0f, -0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN, Float.MIN_VALUE));
        double[] sinExpected = {0.0, -0.0, Double.NaN, Double.NaN, Double.NaN, Float.MIN_VALUE};
        for (int i = 0; i < sin.length; i++) {
            assertBits(sin[i], sinExpected[i], "sin #" + i);
        }
        float[] cos = floats("cos(in0)", f32(0f, -0f, Float.POSITIVE_INFINITY, Float.NaN, Float.MIN_VALUE));
        double[] cosExpected = {1, 1, Double.NaN, Double.NaN, 1};
        for (int i = 0; i < cos.length; i++) {
            assertBits(cos[i], cosExpected[i], "cos #" + i);
        }
        // sigmoid(-0) = 1/(1+1) exactly; exp(-0) = 1; log(-0) = -Inf; rsqrt(-0) = 1/sqrt(-0) = 1/-0 = -Inf
        assertBits(floats("sigmoid(in0)", f32(-0f))[0], 0.5, "sigmoid(-0)");
        assertBits(floats("rsqrt(in0)", f32(-0f))[0], Double.NEGATIVE_INFINITY, "rsqrt(-0)");
        // a huge argument: within one f32 ulp of double sine rounded (argument reduction done right)
        for (float big : new float[] {1e30f, -3e38f, 0x1p100f}) {
            float s = floats("sin(in0)", f32(big))[0];
            float e = (float) Math.sin(big);
            assertThat(Math.abs(s - e)).as("sin(" + big + ") = " + s + " vs " + e).isLessThanOrEqualTo(Math.ulp(e));
        }
    }

    @Test
    void anI32CastToBf16RoundsTwiceAsDocumentedAndHugeI32sSaturateOrOverflowInNarrowBuffers() {
        // 2^25 + 2^17 + 1: to f32 (quantum 4) it becomes 2^25 + 2^17, a bf16 tie (quantum 2^18) kept even: 2^25.
        // Rounded once it would be 2^25 + 2^18: the documented double rounding is what is computed.
        int i = (1 << 25) + (1 << 17) + 1;
        assertBits(floats("f32(bf16(in0))", i32(i))[0], 0x1p25, "bf16(" + i + ")");
        assertThat((float) (0x1p25 + 0x1p18)).isNotEqualTo((float) 0x1p25);
        // an i32 cast to f16: 2^31-1 -> f32 2^31 -> past 65504 -> Inf; to e4m3 -> saturates at 448
        RunResult f16 = generic("f16(in0)", DType.F16, i32(Integer.MAX_VALUE, Integer.MIN_VALUE, 65519, 65520));
        assertThat(f16.trace().get("g").getFirst().toFloats()).containsExactly(Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 65504f,
                Float.POSITIVE_INFINITY);
        RunResult e4m3 = generic("e4m3(in0)", DType.E4M3, i32(Integer.MAX_VALUE, Integer.MIN_VALUE, 464, 465));
        assertThat(e4m3.trace().get("g").getFirst().toFloats()).containsExactly(448f, -448f, 448f, 448f);
    }

    private static RunResult reduce(ReduceFn fn, Tensor t, int axis, DType out, int... outDims) {
        int[] dims = t.shape().dims().stream().mapToInt(Integer::intValue).toArray();
        return Fixtures.program().input("t", t).buffer("T", t.dtype(), dims).buffer("O", out, outDims)
                .loadAll("l", "t", "T", CORE).compute("r", List.of("T"), "O", new ComputeOp.Reduce(fn, axis)).run();
    }

    private static float[] reduced(ReduceFn fn, DType out, float... row) {
        RunResult r = reduce(fn, Tensor.fromFloats(DType.F32, Shape.of(1, row.length), row), 1, out, 1, 1);
        assertThat(r.faults()).isEmpty();
        return r.trace().get("r").getFirst().toFloats();
    }

    private static int argmax(float... row) {
        RunResult r = reduce(ReduceFn.ARGMAX, Tensor.fromFloats(DType.F32, Shape.of(1, row.length), row), 1, DType.I32, 1, 1);
        assertThat(r.faults()).isEmpty();
        return r.trace().get("r").getFirst().toInts()[0];
    }

    @Test
    void oneElementAndSignedZeroReductionsKeepTheFirstElementAsTheFoldStart() {
        // SUM starts from x[0], not from +0: a lone -0 (and -0 + -0) stays -0
        assertBits(reduced(ReduceFn.SUM, DType.F32, -0f)[0], -0.0, "sum(-0)");
        assertBits(reduced(ReduceFn.SUM, DType.F32, -0f, -0f)[0], -0.0, "sum(-0, -0)");
        assertBits(reduced(ReduceFn.SUM, DType.F32, -0f, 0f)[0], 0.0, "sum(-0, +0)");
        assertBits(reduced(ReduceFn.SUM, DType.F32, Float.NaN)[0], Double.NaN, "sum(NaN)");
        assertBits(reduced(ReduceFn.MAX, DType.F32, -0f)[0], -0.0, "max(-0)");
        assertBits(reduced(ReduceFn.MAX, DType.F32, -0f, 0f)[0], 0.0, "max(-0, +0)");
        assertBits(reduced(ReduceFn.MAX, DType.F32, 0f, -0f)[0], 0.0, "max(+0, -0)");
        assertBits(reduced(ReduceFn.MIN, DType.F32, 0f, -0f)[0], -0.0, "min(+0, -0)");
        assertBits(reduced(ReduceFn.MIN, DType.F32, Float.NEGATIVE_INFINITY, Float.NaN, 0f)[0], Double.NaN, "min with a NaN");
        assertThat(argmax(5f)).isZero();
    }

    @Test
    void argmaxTiesGoToTheFirstIndexAndMinusZeroTiesPlusZero() {
        assertThat(argmax(Float.NEGATIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NEGATIVE_INFINITY)).isZero();
        assertThat(argmax(Float.POSITIVE_INFINITY, 1f, Float.POSITIVE_INFINITY)).isZero();
        assertThat(argmax(Float.NEGATIVE_INFINITY, Float.NaN, Float.POSITIVE_INFINITY)).isEqualTo(1);
        // -0 and +0 compare equal: a tie, so the first index wins (docs/semantics.md, "Compute(Reduce)")
        assertThat(argmax(-0f, 0f)).isZero();
        assertThat(argmax(0f, -0f)).isZero();
        assertThat(argmax(1f, 3f, 3f, 2f)).isEqualTo(1);
    }

    @Test
    void i32ReductionsWrapAndTheirEmptyIdentitiesAreTheDocumentedOnes() {
        RunResult sum = reduce(ReduceFn.SUM, Tensor.fromInts(Shape.of(1, 3), new int[] {Integer.MAX_VALUE, 1, 1}), 1, DType.I32, 1, 1);
        assertThat(sum.trace().get("r").getFirst().toInts()).containsExactly(Integer.MIN_VALUE + 1);
        Tensor empty = Tensor.fromInts(Shape.of(2, 0), new int[0]);
        assertThat(reduce(ReduceFn.SUM, empty, 1, DType.I32, 2, 1).trace().get("r").getFirst().toInts()).containsExactly(0, 0);
        assertThat(reduce(ReduceFn.MAX, empty, 1, DType.I32, 2, 1).trace().get("r").getFirst().toInts()).containsExactly(Integer.MIN_VALUE, Integer.MIN_VALUE);
        assertThat(reduce(ReduceFn.MIN, empty, 1, DType.I32, 2, 1).trace().get("r").getFirst().toInts()).containsExactly(Integer.MAX_VALUE, Integer.MAX_VALUE);
    }

    @Test
    void aBf16SumIsFoldedInF32AndRoundedOnceNotAfterEveryAddition() {
        // 1 + 4 x 2^-9 = 1 + 2^-7 exactly in f32, a bf16 value; rounded to bf16 after every addition, 1 + 2^-9 would fall back to 1 each time
        float[] row = {1f, 0x1p-9f, 0x1p-9f, 0x1p-9f, 0x1p-9f};
        assertBits(reduced(ReduceFn.SUM, DType.BF16, row)[0], 1 + 0x1p-7, "bf16 sum");
        assertThat(NarrowFormats.BF16.round(1 + 0x1p-9)).isEqualTo(1.0);
    }

    @Test
    void aSoftmaxOfAFullyMaskedRowIsNaNAndOfARowWithOneLiveEntryIsExact() {
        float inf = Float.POSITIVE_INFINITY;
        Tensor rows = Tensor.fromFloats(DType.F32, Shape.of(2, 3), new float[] {-inf, -inf, -inf, -inf, 0f, -inf});
        Fixtures p = Fixtures.program().input("x", rows).buffer("X", DType.F32, 2, 3).loadAll("l", "x", "X", CORE)
                .buffer("M", DType.F32, 2, 1).compute("max", List.of("X"), "M", new ComputeOp.Reduce(ReduceFn.MAX, 1))
                .buffer("E", DType.F32, 2, 3).buffer("S", DType.F32, 2, 1).buffer("Y", DType.F32, 2, 3);
        try {
            p.generic("exp", List.of("X", "M"), "E", ExprSyntax.parse("exp(sub(in0, in1))"))
                    .compute("sum", List.of("E"), "S", new ComputeOp.Reduce(ReduceFn.SUM, 1))
                    .generic("div", List.of("E", "S"), "Y", ExprSyntax.parse("div(in0, in1)"));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        RunResult r = p.run();
        assertThat(r.faults()).isEmpty();
        float[] y = r.trace().get("div").getFirst().toFloats();
        // row 0: max = -Inf, -Inf - (-Inf) = NaN (IEEE), so every probability is NaN; row 1: exp(-Inf) = +0 exactly, exp(0) = 1
        for (int j = 0; j < 3; j++) {
            assertThat(y[j]).as("masked row, column " + j).isNaN();
        }
        assertBits(y[3], 0.0, "row 1, col 0");
        assertBits(y[4], 1.0, "row 1, col 1");
        assertBits(y[5], 0.0, "row 1, col 2");
    }

    private static float[] matmul(float[] a, int m, int k, float[] b, int n, float[] bias) {
        Fixtures p = Fixtures.program().input("a", Tensor.fromFloats(DType.F32, Shape.of(m, k), a))
                .input("b", Tensor.fromFloats(DType.F32, Shape.of(k, n), b))
                .buffer("A", DType.F32, m, k).buffer("B", DType.F32, k, n).buffer("O", DType.F32, m, n)
                .loadAll("la", "a", "A", CORE).loadAll("lb", "b", "B", CORE);
        String biasBuffer = null;
        if (bias != null) {
            p.input("bias", Tensor.fromFloats(DType.F32, Shape.of(m, n), bias)).buffer("C", DType.F32, m, n).loadAll("lc", "bias", "C", CORE);
            biasBuffer = "C";
        }
        RunResult r = p.compute("mm", List.of("A", "B"), "O", new ComputeOp.MatMul(false, false, biasBuffer, null)).run();
        assertThat(r.faults()).isEmpty();
        return r.trace().get("mm").getFirst().toFloats();
    }

    @Test
    void theBiasIsAddedOnceAfterTheChainNotAsItsStart() {
        // chain: fma(1e8, 1, +0) = 1e8; fma(1, 1, 1e8) = 1e8 (the 1 is below half an ulp, 4); then + (-1e8) = 0.
        // Starting the chain from the bias would give -1e8 + 1e8 + 1 = 1.
        assertBits(matmul(new float[] {1e8f, 1f}, 1, 2, new float[] {1f, 1f}, 1, new float[] {-1e8f})[0], 0.0, "bias after the chain");
        // the chain starts from +0: a lone -0 product gives fma(-0, 1, +0) = +0, and a -0 bias keeps it +0
        assertBits(matmul(new float[] {-0f}, 1, 1, new float[] {1f}, 1, null)[0], 0.0, "-0 x 1");
        assertBits(matmul(new float[] {-0f}, 1, 1, new float[] {1f}, 1, new float[] {-0f})[0], 0.0, "-0 x 1 + -0");
    }

    @Test
    void aSpilledAccumulatorIsTheNextChainsStartSoTheCancellationHappensInsideIt() {
        // first product: 1e8 into the spill; second: [-1e8, 1] . [1, 1] continuing from it: 1e8 - 1e8 = 0, then + 1 = 1.
        // Summing the second product on its own (-1e8 + 1 = -1e8 in f32) and adding the spill after would give 0.
        RunResult r = Fixtures.program()
                .input("a1", Tensor.fromFloats(DType.F32, Shape.of(1, 1), new float[] {1e8f}))
                .input("a2", Tensor.fromFloats(DType.F32, Shape.of(1, 2), new float[] {-1e8f, 1f}))
                .input("b1", Tensor.fromFloats(DType.F32, Shape.of(1, 1), new float[] {1f}))
                .input("b2", Tensor.fromFloats(DType.F32, Shape.of(2, 1), new float[] {1f, 1f}))
                .buffer("A1", DType.F32, 1, 1).buffer("A2", DType.F32, 1, 2).buffer("B1", DType.F32, 1, 1).buffer("B2", DType.F32, 2, 1)
                .buffer("spill", DType.F32, 1, 1).buffer("o1", DType.F32, 1, 1).buffer("o2", DType.F32, 1, 1)
                .loadAll("la1", "a1", "A1", CORE).loadAll("la2", "a2", "A2", CORE).loadAll("lb1", "b1", "B1", CORE).loadAll("lb2", "b2", "B2", CORE)
                .compute("mm1", List.of("A1", "B1"), "o1", new ComputeOp.MatMul(false, false, null, "spill"))
                .compute("mm2", List.of("A2", "B2"), "o2", new ComputeOp.MatMul(false, false, null, "spill"))
                .run();
        assertThat(r.faults()).isEmpty();
        assertBits(r.trace().get("mm2").getFirst().toFloats()[0], 1.0, "second chain from the spill");
        assertThat((float) ((float) (-1e8f + 1f) + 1e8f)).isZero();
    }

    @Test
    void inFloat64ModeACastToI32StillTruncatesSaturatesAndSendsNaNToZeroAndRemIsExact() {
        double[] x = {Double.NaN, 3e9, -3e9, -2.75, 2147483647.9, Double.NEGATIVE_INFINITY, 1e300};
        Tensor in = Tensor.fromDoubles(DType.F32, Shape.of(x.length), x);
        RunResult r = Fixtures.program().input("t", in).buffer("X", DType.F32, x.length).loadAll("l", "t", "X", CORE)
                .buffer("N", DType.I32, x.length).generic("g", List.of("X"), "N", parse("i32(in0)"))
                .buffer("R", DType.F32, x.length).generic("rem", List.of("X"), "R", parse("rem(in0, 0.75)"))
                .run(org.stagecheck.interp.RunOptions.defaults().withTrace(true).withPrecision(org.stagecheck.interp.Precision.F64));
        assertThat(r.faults()).isEmpty();
        assertThat(r.trace().get("g").getFirst().toInts()).containsExactly(0, Integer.MAX_VALUE, Integer.MIN_VALUE, -2, Integer.MAX_VALUE,
                Integer.MIN_VALUE, Integer.MAX_VALUE);
        // in float64 mode nothing is rounded to f32: rem is the exact remainder of the doubles (1e300 mod 0.75 included)
        double[] rem = r.trace().get("rem").getFirst().toDoubles();
        for (int i = 0; i < x.length; i++) {
            double expected = Double.isNaN(x[i]) || Double.isInfinite(x[i]) ? Double.NaN
                    : new BigDecimal(x[i]).subtract(new BigDecimal(x[i]).divideToIntegralValue(new BigDecimal("0.75")).multiply(new BigDecimal("0.75"))).doubleValue();
            assertThat(Double.compare(rem[i], expected) == 0 || (expected == 0 && rem[i] == 0)).as("rem(" + x[i] + ", 0.75) = " + rem[i] + " vs " + expected).isTrue();
        }
    }

    private static org.stagecheck.spec.ir.Expr parse(String expr) {
        try {
            return ExprSyntax.parse(expr);
        } catch (Exception e) {
            throw new IllegalArgumentException(expr, e);
        }
    }
}
