package org.stagecheck.conformance;

import static org.stagecheck.conformance.Tensors.bits;
import static org.stagecheck.conformance.Tensors.dims;
import static org.stagecheck.conformance.Tensors.f32;

import java.util.List;

import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;

/**
 * The floating functions of the Generic algebra (docs/semantics.md, "Generic": exp log sqrt rsqrt
 * tanh sigmoid recip sin cos), each on exact points, its special values (zeros, infinities, NaN,
 * overflow) and ordinary arguments. Expected values are the f32 nearest to the true value, worked
 * to 25 digits with arbitrary-precision arithmetic and written below with their bits; the
 * tolerance is {@link Tolerance#forFunction(Fn)} (exact for sqrt and recip).
 */
final class FunctionCases {
    private FunctionCases() {
    }

    private static final float NAN = Float.NaN;
    private static final float INF = Float.POSITIVE_INFINITY;

    static List<ConformanceCase> cases() {
        return List.of(
                // exp(0) = 1; exp(1) = 2.718281828459045235 -> 0x402DF854; exp(-1) = 0.3678794411714423216 -> 0x3EBC5AB2;
                // exp(-inf) = 0; exp(inf) = inf; exp(89) = 4.49e38 > 3.40e38 overflows to inf; exp(-110) = 1.7e-48 < 2^-150 rounds to 0
                function(Fn.EXP, f32(dims(8), 0, 1, -1, -INF, INF, 89, -110, NAN),
                        0x3F800000, 0x402DF854, 0x3EBC5AB2, 0x00000000, 0x7F800000, 0x7F800000, 0x00000000, 0x7FC00000),
                // log(1) = 0; log(2) = 0.6931471805599453094 -> 0x3F317218; log(10) = 2.302585092994045684 -> 0x40135D8E;
                // log(+-0) = -inf; log(-1) = NaN; log(inf) = inf
                function(Fn.LOG, f32(dims(8), 1, 2, 10, 0f, -0f, -1, INF, NAN),
                        0x00000000, 0x3F317218, 0x40135D8E, 0xFF800000, 0xFF800000, 0x7FC00000, 0x7F800000, 0x7FC00000),
                // sqrt(4) = 2; sqrt(2) = 1.414213562373095049 -> 0x3FB504F3; sqrt(0.25) = 0.5; sqrt(+0) = +0; sqrt(-0) = -0;
                // sqrt(-1) = NaN; sqrt(inf) = inf
                function(Fn.SQRT, f32(dims(8), 4, 2, 0.25f, 0f, -0f, -1, INF, NAN),
                        0x40000000, 0x3FB504F3, 0x3F000000, 0x00000000, 0x80000000, 0x7FC00000, 0x7F800000, 0x7FC00000),
                // rsqrt(4) = 0.5; rsqrt(0.25) = 2; rsqrt(2) = 0.7071067811865475244 -> 0x3F3504F3; rsqrt(+0) = 1/+0 = inf;
                // rsqrt(-0) = 1/-0 = -inf; rsqrt(inf) = 0; rsqrt(-1) = NaN
                function(Fn.RSQRT, f32(dims(8), 4, 0.25f, 2, 0f, -0f, INF, -1, NAN),
                        0x3F000000, 0x40000000, 0x3F3504F3, 0x7F800000, 0xFF800000, 0x00000000, 0x7FC00000, 0x7FC00000),
                // tanh(0) = 0; tanh(0.5) = 0.4621171572600097585 -> 0x3EEC9A9F, odd: tanh(-0.5) -> 0xBEEC9A9F;
                // tanh(20) = 1 - 8.5e-18 -> 1.0; tanh(+-inf) = +-1
                function(Fn.TANH, f32(dims(7), 0, 0.5f, -0.5f, 20, INF, -INF, NAN),
                        0x00000000, 0x3EEC9A9F, 0xBEEC9A9F, 0x3F800000, 0x3F800000, 0xBF800000, 0x7FC00000),
                // sigmoid(0) = 1/2; sigmoid(1) = 0.7310585786300048793 -> 0x3F3B26A8; sigmoid(-1) = 0.2689414213699951207 -> 0x3E89B2B1;
                // sigmoid(20) = 1 - 2.1e-9 -> 1.0; sigmoid(inf) = 1/(1+0) = 1; sigmoid(-inf) = 1/(1+inf) = 0
                function(Fn.SIGMOID, f32(dims(7), 0, 1, -1, 20, INF, -INF, NAN),
                        0x3F000000, 0x3F3B26A8, 0x3E89B2B1, 0x3F800000, 0x3F800000, 0x00000000, 0x7FC00000),
                // recip(4) = 0.25; recip(-0.5) = -2; recip(3) = 0.3333333333333333333 -> 0x3EAAAAAB; recip(+-0) = +-inf;
                // recip(+-inf) = +-0
                function(Fn.RECIP, f32(dims(8), 4, -0.5f, 3, 0f, -0f, INF, -INF, NAN),
                        0x3E800000, 0xC0000000, 0x3EAAAAAB, 0x7F800000, 0xFF800000, 0x00000000, 0x80000000, 0x7FC00000),
                // sin(0) = 0; sin(1) = 0.8414709848078965067 -> 0x3F576AA4; sin(-1) -> 0xBF576AA4; sin(inf) = NaN
                function(Fn.SIN, f32(dims(5), 0, 1, -1, INF, NAN),
                        0x00000000, 0x3F576AA4, 0xBF576AA4, 0x7FC00000, 0x7FC00000),
                // cos(0) = cos(-0) = 1; cos(1) = 0.5403023058681397174 -> 0x3F0A5140; cos(2) = -0.4161468365471423870 -> 0xBED51133;
                // cos(inf) = NaN
                function(Fn.COS, f32(dims(6), 0, -0f, 1, 2, INF, NAN),
                        0x3F800000, 0x3F800000, 0x3F0A5140, 0xBED51133, 0x7FC00000, 0x7FC00000));
    }

    private static ConformanceCase function(Fn fn, org.stagecheck.tensor.Tensor x, int... expectedBits) {
        return CaseBuilder.elementwise(Family.FUNCTION, fn.spelling(),
                fn.spelling() + " in f32: exact points, zeros, infinities, NaN and ordinary arguments (" + Tolerance.forFunction(fn).describe() + ")",
                List.of(x), Expr.apply(fn, Expr.in(0)), bits(DType.F32, x.shape().toArray(), expectedBits), Tolerance.forFunction(fn));
    }
}
