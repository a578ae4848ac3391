package org.stagecheck.interp.accuracy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stagecheck.interp.Fixtures.CORE;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.stagecheck.backend.RunResult;
import org.stagecheck.interp.Fixtures;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.json.ExprSyntax;
import org.stagecheck.tensor.Tensor;

/**
 * The evaluator against an oracle written apart from it, straight from the brief's semantics
 * ("compute in f32 and round to the output dtype with round-to-nearest-even after each stage") and
 * docs/semantics.md where the brief is silent: the oracle computes in double, rounds to f32 with
 * Java's cast (correct for + - * / of f32 operands: double has more than 2·24+2 bits), and rounds
 * to bf16/f16/e4m3/e5m2 with {@link #round}, a generic round-to-nearest-even written here without
 * the project's codecs. Probes the edges an independent oracle would: ties, subnormals, overflow
 * (to Inf, or saturating for the 8-bit floats), NaN and -0, i32 wrap-around and division, casts to
 * i32, max/min with NaN, transcendental extremes, empty reductions, the matmul's fma chain.
 */
class IndependentOracleTest {

    /** A floating format: mantissa bits after the point, smallest normal exponent, largest finite value, saturating or not. */
    enum Format {
        BF16(DType.BF16, 7, -126, 0x1.FEp127, false),
        F16(DType.F16, 10, -14, 65504, false),
        E4M3(DType.E4M3, 3, -6, 448, true),
        E5M2(DType.E5M2, 2, -14, 57344, true);

        final DType dtype;
        final int mantissa;
        final int minExponent;
        final double maxFinite;
        final boolean saturating;

        Format(DType dtype, int mantissa, int minExponent, double maxFinite, boolean saturating) {
            this.dtype = dtype;
            this.mantissa = mantissa;
            this.minExponent = minExponent;
            this.maxFinite = maxFinite;
            this.saturating = saturating;
        }
    }

    /** Round-to-nearest-even of {@code x} to {@code f}: the quantum is fixed by the exponent (floored at the subnormal range). */
    static double round(double x, Format f) {
        if (Double.isNaN(x)) {
            return Double.NaN;
        }
        if (Double.isInfinite(x)) {
            return f.saturating ? Math.copySign(f.maxFinite, x) : x;
        }
        if (x == 0) {
            return x;
        }
        int e = Math.max(Math.getExponent(x), f.minExponent);
        double quantum = Math.scalb(1.0, e - f.mantissa);
        double q = Math.rint(x / quantum) * quantum;
        if (Math.abs(q) > f.maxFinite) {
            q = f.saturating ? Math.copySign(f.maxFinite, x) : Math.copySign(Double.POSITIVE_INFINITY, x);
        }
        return q == 0 ? Math.copySign(0.0, x) : q;
    }

    /** Runs {@code out = expr(in0, in1, ...)} as one Generic stage into a buffer of {@code out}; returns the output as floats. */
    private static float[] generic(String expr, DType out, Tensor... inputs) {
        return genericTensor(expr, out, inputs).toFloats();
    }

    private static int[] genericInts(String expr, Tensor... inputs) {
        return genericTensor(expr, DType.I32, inputs).toInts();
    }

    private static Tensor genericTensor(String expr, DType out, Tensor... inputs) {
        Fixtures p = Fixtures.program();
        List<String> ins = new ArrayList<>();
        int[] shape = dimsOf(inputs[0].shape());
        for (int i = 0; i < inputs.length; i++) {
            p.input("t" + i, inputs[i]).buffer("b" + i, inputs[i].dtype(), dimsOf(inputs[i].shape())).loadAll("l" + i, "t" + i, "b" + i, CORE);
            ins.add("b" + i);
        }
        p.buffer("o", out, shape);
        try {
            p.generic("g", ins, "o", ExprSyntax.parse(expr));
        } catch (Exception e) {
            throw new IllegalArgumentException(expr, e);
        }
        RunResult r = p.run();
        assertThat(r.faults()).as(expr).isEmpty();
        return r.trace().get("g").getFirst();
    }

    private static Tensor f32(float... v) {
        return Tensor.fromFloats(DType.F32, Shape.of(v.length), v);
    }

    private static Tensor i32(int... v) {
        return Tensor.fromInts(Shape.of(v.length), v);
    }

    /** Equal as the brief compares floats: bit for bit (so -0 is not +0), any NaN matching any NaN. */
    private static void assertSame(float[] actual, double[] expected, String what) {
        assertThat(actual).hasSize(expected.length);
        for (int i = 0; i < expected.length; i++) {
            float e = (float) expected[i];
            if (Float.isNaN(e)) {
                assertThat(actual[i]).as(what + " element " + i).isNaN();
            } else {
                assertThat(Float.floatToIntBits(actual[i])).as(what + " element " + i + ": " + actual[i] + " vs the oracle's " + e)
                        .isEqualTo(Float.floatToIntBits(e));
            }
        }
    }

    /** Edge values of every format: ties at each format's precision, subnormals, overflow thresholds, NaN, Inf, -0. */
    private static float[] edges(SplittableRandom rnd) {
        List<Float> v = new ArrayList<>(List.of(0f, -0f, 1f, -1f, Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY,
                Float.MIN_VALUE, -Float.MIN_VALUE, Float.MIN_NORMAL, Float.MAX_VALUE, -Float.MAX_VALUE,
                1 + 0x1p-8f, 1 + 0x1p-8f + 0x1p-20f, 1 + 3 * 0x1p-8f, 1 + 0x1p-11f, 1 + 3 * 0x1p-11f, 1 + 0x1p-4f, 1 + 3 * 0x1p-4f,
                1 + 0x1p-3f, 1 + 3 * 0x1p-3f, 65504f, 65519.99f, 65520f, 448f, 464f, 465f, 480f, 1e6f, 57344f, 61440f, 61441f,
                0x1p-24f, 0x1p-25f, 0x1.8p-25f, 0x1p-9f, 0x1p-10f, 0x1.8p-10f, 0x1p-16f, 0x1p-17f, 0x1.8p-17f, 0x1p-133f,
                0x1.FEp127f, 0x1.FFp127f, 0x1.FF8p127f));
        for (int i = 0; i < 200; i++) {
            v.add((float) (rnd.nextGaussian() * Math.pow(2, rnd.nextInt(-30, 30))));
        }
        float[] out = new float[v.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = v.get(i);
        }
        return out;
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void anF32SumIsRoundedOnceToTheOutputDtypeNearestEven(Format f) {
        SplittableRandom rnd = new SplittableRandom(7);
        float[] a = edges(rnd);
        float[] b = new float[a.length];
        for (int i = 0; i < b.length; i++) {
            b[i] = i % 3 == 0 ? 0f : (float) (rnd.nextGaussian() * Math.pow(2, rnd.nextInt(-20, 20)));
        }
        double[] expected = new double[a.length];
        for (int i = 0; i < a.length; i++) {
            expected[i] = round((float) ((double) a[i] + b[i]), f);
        }
        assertSame(generic("add(in0, in1)", f.dtype, f32(a), f32(b)), expected, "add to " + f);
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void withinOneStageEveryOpIsF32AndOnlyTheStageOutputIsRoundedButAStageBoundaryRoundsAgain(Format f) {
        SplittableRandom rnd = new SplittableRandom(11);
        float[] a = edges(rnd);
        float[] b = new float[a.length];
        float[] c = new float[a.length];
        for (int i = 0; i < a.length; i++) {
            b[i] = (float) rnd.nextDouble(-4, 4);
            c[i] = (float) rnd.nextDouble(-4, 4);
        }
        double[] oneStage = new double[a.length];
        for (int i = 0; i < a.length; i++) {
            float sum = (float) ((double) a[i] + b[i]);
            oneStage[i] = round((float) ((double) sum * c[i]), f);
        }
        assertSame(generic("mul(add(in0, in1), in2)", f.dtype, f32(a), f32(b), f32(c)), oneStage, "fused in one stage, " + f);

        // two stages: the sum is written to a buffer of the format, then multiplied
        Fixtures p = Fixtures.program().input("a", f32(a)).input("b", f32(b)).input("c", f32(c))
                .buffer("A", DType.F32, a.length).buffer("B", DType.F32, a.length).buffer("C", DType.F32, a.length)
                .buffer("S", f.dtype, a.length).buffer("O", DType.F32, a.length)
                .loadAll("la", "a", "A", CORE).loadAll("lb", "b", "B", CORE).loadAll("lc", "c", "C", CORE);
        try {
            p.generic("sum", List.of("A", "B"), "S", ExprSyntax.parse("add(in0, in1)"))
                    .generic("prod", List.of("S", "C"), "O", ExprSyntax.parse("mul(in0, in1)"));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        RunResult r = p.run();
        assertThat(r.faults()).isEmpty();
        double[] twoStages = new double[a.length];
        for (int i = 0; i < a.length; i++) {
            double s = round((float) ((double) a[i] + b[i]), f);
            twoStages[i] = (float) (s * c[i]);
        }
        assertSame(r.trace().get("prod").getFirst().toFloats(), twoStages, "rounded between stages, " + f);
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void aCastInsideAnExpressionRoundsToItsDtypeThenContinuesInF32(Format f) {
        float[] a = edges(new SplittableRandom(3));
        float[] one = new float[a.length];
        java.util.Arrays.fill(one, 0x1p-30f);
        double[] expected = new double[a.length];
        for (int i = 0; i < a.length; i++) {
            expected[i] = (float) (round(a[i], f) + one[i]);
        }
        assertSame(generic("add(" + f.dtype.jsonName() + "(in0), in1)", DType.F32, f32(a), f32(one)), expected, "cast to " + f);
    }

    @Test
    void maxAndMinPropagateNaNAndOrderMinusZeroBelowPlusZero() {
        float nan = Float.NaN;
        Tensor a = f32(nan, 1f, nan, -0f, 0f, Float.NEGATIVE_INFINITY, 3f);
        Tensor b = f32(1f, nan, nan, 0f, -0f, 2f, Float.POSITIVE_INFINITY);
        assertSame(generic("max(in0, in1)", DType.F32, a, b), new double[] {nan, nan, nan, 0.0, 0.0, 2, Double.POSITIVE_INFINITY}, "max");
        assertSame(generic("min(in0, in1)", DType.F32, a, b), new double[] {nan, nan, nan, -0.0, -0.0, Double.NEGATIVE_INFINITY, 3}, "min");
    }

    @Test
    void infinitiesAndNaNFollowIeee() {
        float inf = Float.POSITIVE_INFINITY;
        Tensor a = f32(inf, inf, 0f, 1f, -1f, 0f, -0f);
        Tensor b = f32(-inf, 0f, 0f, 0f, 0f, -1f, 5f);
        assertSame(generic("add(in0, in1)", DType.F32, a, b), new double[] {Double.NaN, inf, 0, 1, -1, -1, 5}, "add");
        assertSame(generic("mul(in0, in1)", DType.F32, a, b), new double[] {Double.NEGATIVE_INFINITY, Double.NaN, 0, 0, -0.0, -0.0, -0.0}, "mul");
        assertSame(generic("div(in0, in1)", DType.F32, a, b), new double[] {Double.NaN, inf, Double.NaN, inf, Double.NEGATIVE_INFINITY, -0.0, -0.0}, "div");
        assertSame(generic("sub(in0, in0)", DType.F32, a), new double[] {Double.NaN, Double.NaN, 0, 0, 0, 0, 0}, "x - x");
        // comparisons: false with NaN except ne
        Tensor n = f32(Float.NaN, 1f, -0f);
        Tensor m = f32(Float.NaN, Float.NaN, 0f);
        assertSame(generic("select(eq(in0, in1), 1.0, 0.0)", DType.F32, n, m), new double[] {0, 0, 1}, "eq");
        assertSame(generic("select(ne(in0, in1), 1.0, 0.0)", DType.F32, n, m), new double[] {1, 1, 0}, "ne");
        assertSame(generic("select(lt(in0, in1), 1.0, 0.0)", DType.F32, n, m), new double[] {0, 0, 0}, "lt");
    }

    @Test
    void i32ArithmeticWrapsAndDivisionTruncatesTowardZero() {
        int max = Integer.MAX_VALUE;
        int min = Integer.MIN_VALUE;
        Tensor a = i32(max, min, -7, 7, -7, min, min, 46341);
        Tensor b = i32(1, -1, 2, -2, -2, -1, 1, 46341);
        assertThat(genericInts("add(in0, in1)", a, b)).containsExactly(min, max, -5, 5, -9, max, min + 1, 92682);
        assertThat(genericInts("div(in0, in1)", a, b)).containsExactly(max, min, -3, -3, 3, min, min, 1);
        assertThat(genericInts("rem(in0, in1)", a, b)).containsExactly(0, 0, -1, 1, -1, 0, 0, 0);
        assertThat(genericInts("mul(in0, in1)", a, b)).containsExactly(max, min, -14, -14, 14, min, min, -2147479015);
        assertThat(genericInts("abs(in0)", a)).containsExactly(max, min, 7, 7, 7, min, min, 46341);
        assertThat(genericInts("neg(in0)", a)).containsExactly(-max, min, 7, -7, 7, min, min, -46341);
    }

    @Test
    void integerDivisionByZeroIsAFaultNotAValue() {
        Fixtures p = Fixtures.program().input("a", i32(1, 2)).input("b", i32(1, 0))
                .buffer("A", DType.I32, 2).buffer("B", DType.I32, 2).buffer("O", DType.I32, 2)
                .loadAll("la", "a", "A", CORE).loadAll("lb", "b", "B", CORE);
        try {
            p.generic("d", List.of("A", "B"), "O", ExprSyntax.parse("div(in0, in1)"));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        RunResult r = p.run();
        assertThat(r.faults()).extracting(d -> d.code()).containsExactly("DIV_BY_ZERO");
    }

    @Test
    void castToI32TruncatesTowardZeroSaturatesAndSendsNaNToZero() {
        Tensor a = f32(3.7f, -3.7f, 0.5f, -0.5f, 3e9f, -3e9f, Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 2147483520f, -2147483648f);
        assertThat(genericInts("i32(in0)", a)).containsExactly(3, -3, 0, 0, Integer.MAX_VALUE, Integer.MIN_VALUE, 0,
                Integer.MAX_VALUE, Integer.MIN_VALUE, 2147483520, Integer.MIN_VALUE);
        // an i32 stored to a floating buffer is converted to f32 nearest-even: 2^24 + 1 is a tie, kept even
        assertSame(generic("f32(in0)", DType.F32, i32(16777217, 16777219, -16777217, Integer.MAX_VALUE)),
                new double[] {16777216, 16777220, -16777216, 2147483648.0}, "i32 to f32");
    }

    @ParameterizedTest
    @ValueSource(strings = {"exp", "log", "tanh", "sqrt", "sigmoid", "rsqrt"})
    void transcendentalsAtTheirExtremesAgreeWithDoubleMathRoundedOnce(String fn) {
        float[] x = {0f, -0f, 1f, -1f, 88.7f, 88.73f, 89f, -87.3f, -103f, -104f, -150f, 1e-30f, Float.MIN_VALUE, 20f, -20f, 9.1f, -9.1f,
                1e30f, -1e30f, Float.MAX_VALUE, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN, 0.5f, 1e-7f, -1e-7f};
        java.util.function.DoubleUnaryOperator oracle = switch (fn) {
            case "exp" -> Math::exp;
            case "log" -> Math::log;
            case "tanh" -> Math::tanh;
            case "sqrt" -> Math::sqrt;
            case "sigmoid" -> v -> 1 / (1 + Math.exp(-v));
            case "rsqrt" -> v -> 1 / Math.sqrt(v);
            default -> throw new IllegalArgumentException(fn);
        };
        float[] actual = generic(fn + "(in0)", DType.F32, f32(x));
        for (int i = 0; i < x.length; i++) {
            float e = (float) oracle.applyAsDouble(x[i]);
            if (Float.isNaN(e) || Float.isInfinite(e) || e == 0) {
                // the special values are exact: NaN, the overflow to Inf, the underflow to a signed zero
                assertSame(new float[] {actual[i]}, new double[] {e}, fn + "(" + x[i] + ")");
            } else {
                // double math rounded once to f32: within one f32 ulp of the oracle's own rounding
                assertThat(Math.abs(actual[i] - e)).as(fn + "(" + x[i] + ") = " + actual[i] + " vs " + e).isLessThanOrEqualTo(Math.ulp(e));
            }
        }
    }

    @Test
    void transcendentalOverflowAndUnderflowInF32ByHand() {
        // e^89 is past the largest f32; e^-100 (3.7e-44) is an f32 subnormal; e^-104 (6.8e-46) is below half the smallest one
        assertSame(generic("exp(in0)", DType.F32, f32(89f, -100f, -104f, -87f)),
                new double[] {Double.POSITIVE_INFINITY, (float) Math.exp(-100f), 0, (float) Math.exp(-87f)}, "exp");
        assertThat(generic("exp(in0)", DType.F32, f32(-100f))[0]).isPositive().isLessThan(Float.MIN_NORMAL);
        assertSame(generic("log(in0)", DType.F32, f32(0f, -0f, -1f, Float.POSITIVE_INFINITY)),
                new double[] {Double.NEGATIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NaN, Double.POSITIVE_INFINITY}, "log");
        assertSame(generic("tanh(in0)", DType.F32, f32(20f, -20f, -0f)), new double[] {1, -1, -0.0}, "tanh");
        assertSame(generic("sigmoid(in0)", DType.F32, f32(-200f, 200f)), new double[] {0, 1}, "sigmoid");
        assertSame(generic("sqrt(in0)", DType.F32, f32(-0f, -1f)), new double[] {-0.0, Double.NaN}, "sqrt");
        assertSame(generic("exp(in0)", DType.BF16, f32(88.7f)), new double[] {round(Math.exp(88.7f), Format.BF16)}, "exp to bf16");
    }

    private static RunResult reduce(ReduceFn fn, Tensor t, int axis, DType out, int... outDims) {
        return Fixtures.program().input("t", t).buffer("T", t.dtype(), dimsOf(t.shape())).buffer("O", out, outDims)
                .loadAll("l", "t", "T", CORE)
                .compute("r", List.of("T"), "O", new ComputeOp.Reduce(fn, axis)).run();
    }

    @Test
    void reductionsOfAnEmptyAxisAreTheIdentityOfTheirFoldAndArgmaxFaults() {
        Tensor empty = Tensor.fromFloats(DType.F32, Shape.of(2, 0), new float[0]);
        assertSame(reduce(ReduceFn.SUM, empty, 1, DType.F32, 2, 1).trace().get("r").getFirst().toFloats(), new double[] {0, 0}, "sum");
        assertSame(reduce(ReduceFn.MAX, empty, 1, DType.F32, 2, 1).trace().get("r").getFirst().toFloats(),
                new double[] {Double.NEGATIVE_INFINITY, Double.NEGATIVE_INFINITY}, "max");
        assertSame(reduce(ReduceFn.MIN, empty, 1, DType.F32, 2, 1).trace().get("r").getFirst().toFloats(),
                new double[] {Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY}, "min");
        assertThat(reduce(ReduceFn.ARGMAX, empty, 1, DType.I32, 2, 1).faults()).extracting(d -> d.code()).containsExactly("EMPTY_REDUCE");
    }

    @Test
    void aReduceFoldsInIndexOrderInF32AndNaNWinsMaxAndArgmax() {
        // in index order 1e8 + 1 + 1 + ... stays 1e8 in f32 (each 1 is below half an ulp); summed in double it would be 1e8 + 8
        float[] v = {1e8f, 1, 1, 1, 1, 1, 1, 1, 1};
        double acc = v[0];
        for (int i = 1; i < v.length; i++) {
            acc = (float) (acc + v[i]);
        }
        assertSame(reduce(ReduceFn.SUM, Tensor.fromFloats(DType.F32, Shape.of(1, 9), v), 1, DType.F32, 1, 1).trace().get("r").getFirst().toFloats(),
                new double[] {acc}, "sum");
        assertThat(acc).isEqualTo(1e8);
        Tensor withNaN = Tensor.fromFloats(DType.F32, Shape.of(1, 4), new float[] {1, Float.NaN, 5, Float.NaN});
        assertThat(reduce(ReduceFn.MAX, withNaN, 1, DType.F32, 1, 1).trace().get("r").getFirst().toFloats()[0]).isNaN();
        assertThat(reduce(ReduceFn.ARGMAX, withNaN, 1, DType.I32, 1, 1).trace().get("r").getFirst().toInts()).containsExactly(1);
        Tensor ties = Tensor.fromFloats(DType.F32, Shape.of(1, 4), new float[] {2, 7, 7, -0f});
        assertThat(reduce(ReduceFn.ARGMAX, ties, 1, DType.I32, 1, 1).trace().get("r").getFirst().toInts()).containsExactly(1);
    }

    private static float[] matmul(float[] a, int m, int k, float[] b, int n, DType out) {
        RunResult r = Fixtures.program().input("a", Tensor.fromFloats(DType.F32, Shape.of(m, k), a))
                .input("b", Tensor.fromFloats(DType.F32, Shape.of(k, n), b))
                .buffer("A", DType.F32, m, k).buffer("B", DType.F32, k, n).buffer("O", out, m, n)
                .loadAll("la", "a", "A", CORE).loadAll("lb", "b", "B", CORE)
                .compute("mm", List.of("A", "B"), "O", ComputeOp.MatMul.plain()).run();
        assertThat(r.faults()).isEmpty();
        return r.trace().get("mm").getFirst().toFloats();
    }

    @Test
    void aMatmulElementIsOneF32FmaChainOverKAscending() {
        // [1, 1e8, -1e8] . [1, 1, 1]: ascending in f32 loses the 1 (1e8 + 1 rounds to 1e8), descending or in double keeps it
        assertSame(matmul(new float[] {1, 1e8f, -1e8f}, 1, 3, new float[] {1, 1, 1}, 1, DType.F32), new double[] {0}, "ascending");
        assertSame(matmul(new float[] {-1e8f, 1e8f, 1}, 1, 3, new float[] {1, 1, 1}, 1, DType.F32), new double[] {1}, "the other order");
        // fma: (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24 exactly; a rounded product then a sum would give 2^-11
        float u = 1 + 0x1p-12f;
        assertSame(matmul(new float[] {-1, u}, 1, 2, new float[] {1, u}, 1, DType.F32), new double[] {0x1p-11 + 0x1p-24}, "fused");
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void randomMatmulsMatchTheSequentialFmaChainRoundedOnceToTheOutput(Format f) {
        SplittableRandom rnd = new SplittableRandom(f.ordinal() * 31L + 5);
        int m = 3;
        int k = 37;
        int n = 5;
        float[] a = new float[m * k];
        float[] b = new float[k * n];
        for (int i = 0; i < a.length; i++) {
            a[i] = (float) rnd.nextGaussian();
        }
        for (int i = 0; i < b.length; i++) {
            b[i] = (float) rnd.nextGaussian();
        }
        double[] expected = new double[m * n];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                float acc = 0f;
                for (int p = 0; p < k; p++) {
                    acc = fmaExact(a[i * k + p], b[p * n + j], acc);
                }
                expected[i * n + j] = round(acc, f);
            }
        }
        assertSame(matmul(a, m, k, b, n, f.dtype), expected, "matmul to " + f);
    }

    /** fma of f32 operands without Math.fma: the exact product and sum in BigDecimal, rounded once to f32 by {@link #toFloat}. */
    private static float fmaExact(float a, float b, float c) {
        java.math.BigDecimal exact = new java.math.BigDecimal(a).multiply(new java.math.BigDecimal(b)).add(new java.math.BigDecimal(c));
        return toFloat(exact);
    }

    /** Correct rounding (nearest, ties to even) of an exact value to f32, by bisection between the neighbouring floats. */
    private static float toFloat(java.math.BigDecimal x) {
        if (x.signum() == 0) {
            return 0f; // an fma whose exact result is 0 gives +0 (the operands here are never all negative zeros)
        }
        float near = x.floatValue();
        float lo = new java.math.BigDecimal(near).compareTo(x) <= 0 ? near : Math.nextDown(near);
        float hi = Math.nextUp(lo);
        int c = x.subtract(new java.math.BigDecimal(lo)).compareTo(new java.math.BigDecimal(hi).subtract(x));
        if (c < 0) {
            return lo;
        }
        if (c > 0) {
            return hi;
        }
        return (Float.floatToIntBits(lo) & 1) == 0 ? lo : hi;
    }

    private static int[] dimsOf(Shape s) {
        return s.dims().stream().mapToInt(Integer::intValue).toArray();
    }
}
