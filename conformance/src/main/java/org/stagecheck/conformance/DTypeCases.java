package org.stagecheck.conformance;

import static org.stagecheck.conformance.Tensors.bits;
import static org.stagecheck.conformance.Tensors.dims;
import static org.stagecheck.conformance.Tensors.exact;
import static org.stagecheck.conformance.Tensors.f32;
import static org.stagecheck.conformance.Tensors.i32;

import java.util.ArrayList;
import java.util.List;

import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.tensor.Tensor;

/**
 * Every dtype (f32, bf16, f16, i32, e4m3, e5m2) as tensor, buffer and cast dtype
 * (docs/semantics.md, "Dtypes and rounding"): moves are bit copies; a value written to a buffer is
 * rounded once from f32 to nearest, ties to even, with each format's overflow rule (IEEE infinity
 * for bf16/f16, saturation to the largest finite value for e4m3/e5m2) and gradual underflow; a
 * cast rounds inside an expression; a stage computes in f32 and rounds once at its end. Every
 * expected code below is worked by hand from the format's layout.
 */
final class DTypeCases {
    private DTypeCases() {
    }

    private static final float INF = Float.POSITIVE_INFINITY;
    private static final float NAN = Float.NaN;

    static List<ConformanceCase> cases() {
        List<ConformanceCase> out = new ArrayList<>();
        out.addAll(copies());
        out.addAll(roundings());
        out.addAll(casts());
        out.addAll(oneRoundingPerStage());
        out.add(e5m2InfinityWidensThenSaturates());
        out.add(mixedInputDtypes());
        return out;
    }

    // ---- moves are bit copies ----

    private static List<ConformanceCase> copies() {
        return List.of(
                // -0, the smallest subnormal, the largest finite, -inf, a NaN, 1
                copy(bits(DType.F32, dims(2, 3), 0x80000000, 0x00000001, 0x7F7FFFFF, 0xFF800000, 0x7FC00000, 0x3F800000)),
                copy(bits(DType.BF16, dims(2, 3), 0x8000, 0x0001, 0x7F7F, 0xFF80, 0x7FC0, 0x3F80)),
                copy(bits(DType.F16, dims(2, 3), 0x8000, 0x0001, 0x7BFF, 0xFC00, 0x7E00, 0x3C00)),
                copy(i32(dims(2, 3), Integer.MIN_VALUE, -1, 0, Integer.MAX_VALUE, 1, 0x12345678)),
                // e4m3 has no infinity: -448 (0xFE) in its place
                copy(bits(DType.E4M3, dims(2, 3), 0x80, 0x01, 0x7E, 0xFE, 0x7F, 0x38)),
                copy(bits(DType.E5M2, dims(2, 3), 0x80, 0x01, 0x7B, 0xFC, 0x7F, 0x3C)));
    }

    /**
     * Loads a [2,3] tensor of special codes into a buffer of its dtype, stores it back, and stores its
     * transpose: both are pure moves, so the codes come out unchanged
     * ({@code out[i][j] = x[j][i]}: x00 x10 x01 x11 x02 x12).
     */
    private static ConformanceCase copy(Tensor x) {
        DType dt = x.dtype();
        byte[] b = x.littleEndianBytes();
        int w = dt.byteSize();
        int[] c = new int[6];
        for (int i = 0; i < 6; i++) {
            c[i] = (int) TensorComparison.bits(b, i, w);
        }
        return CaseBuilder.of(Family.DTYPE, dt.jsonName() + "-copy", dt + " tensors and buffers: Load, Store and layout ops copy the codes unchanged")
                .input("x", x)
                .output("same", dt, 2, 3).output("moved", dt, 3, 2)
                .buffer("X", dt, 2, 3).buffer("T", dt, 3, 2)
                .loadAll("load", "x", "X")
                .compute("transpose", List.of("X"), "T", new ComputeOp.Transpose(List.of(1, 0)))
                .storeAll("store", "X", "same").storeAll("store-t", "T", "moved")
                .expect("same", x)
                .expect("moved", bits(dt, dims(3, 2), c[0], c[3], c[1], c[4], c[2], c[5]))
                .build();
    }

    // ---- storing an f32 result rounds once ----

    private static List<ConformanceCase> roundings() {
        return List.of(
                // bf16 = the top 16 bits of an f32; rounding looks at the low 16 bits (tie = 0x8000)
                rounding(DType.BF16, "ties to even, overflow to infinity, subnormals, NaN",
                        new int[] {0x3F808000, 0x3F818000, 0x3F808001, 0xBF808000, 0x7F7FFFFF, 0x7F7F8000, 0xFF800000, 0x7FC00000, 0x00018000, 0x80000000},
                        // 1+2^-8: tie, even 0x3F80 | 1+3*2^-8: tie, even 0x3F82 | just above the tie: up | negative tie: even
                        // f32 max: low half 0xFFFF above the tie, carries into the exponent: inf | 0x7F7F8000: tie, 0x7F7F is odd: up to inf
                        // -inf | NaN | 0x00018000: tie between subnormals 0x0001 and 0x0002: even | -0
                        0x3F80, 0x3F82, 0x3F81, 0xBF80, 0x7F80, 0x7F80, 0xFF80, 0x7FC0, 0x0002, 0x8000),
                // f16: 10 mantissa bits, bias 15, largest finite 65504 (0x7BFF), subnormals k * 2^-24
                rounding(DType.F16, "ties to even, overflow to infinity at 65520, gradual underflow, NaN",
                        floatBits(1 + 0x1p-11f, 1 + 3 * 0x1p-11f, 1 + 0x1p-11f + 0x1p-20f, 65504, 65519, 65520, -70000, INF,
                                0x1p-24f, 0x1p-25f, 3 * 0x1p-25f, -0x1p-26f, 0x1p-14f - 0x1p-25f, NAN),
                        // 1+2^-11: tie, even 1.0 | 1+3*2^-11: tie, even 1+2^-9 | above the tie: up | max | 65519 below the midpoint 65520: max
                        // 65520: tie between 65504 (odd) and 65536: even, which overflows to inf | -70000: -inf | inf
                        // 2^-24: smallest subnormal | 2^-25: tie with 0, even 0 | 3*2^-25: tie, even 2*2^-24 | -2^-26: -0
                        // 2^-14 - 2^-25: tie between the largest subnormal 0x03FF and the smallest normal 0x0400: even 0x0400 | NaN
                        0x3C00, 0x3C02, 0x3C01, 0x7BFF, 0x7BFF, 0x7C00, 0xFC00, 0x7C00, 0x0001, 0x0000, 0x0002, 0x8000, 0x0400, 0x7E00),
                // e4m3: 3 mantissa bits, bias 7, codes S.EEEE.MMM; 1.0 = 0x38; largest finite 448 = 1.75*2^8 = 0x7E;
                // NaN 0x7F; subnormals k * 2^-9
                rounding(DType.E4M3, "ties to even, saturation to +-448 (infinities too), gradual underflow, NaN",
                        floatBits(1.0625f, 1.1875f, 1.0625f + 0x1p-20f, -1.0625f, 240, 448, 464, 1e6f, -1e6f, INF, -INF,
                                0x1p-9f, 0x1p-10f, 3 * 0x1p-10f, -0x1p-11f, 15 * 0x1p-10f, NAN),
                        // 1+1/16: tie between 1 (0x38) and 1.125 (0x39): even 0x38 | 1.1875: tie 0x39/0x3A: even 0x3A | above: up
                        // negative tie | 240 = 1.875*2^7 = 0x77 exactly | 448 | 464: would round to 480 > 448: saturates
                        // 1e6, -1e6, inf, -inf: saturate to +-448
                        // 2^-9 = 0x01 | 2^-10: tie with 0, even 0 | 3*2^-10: tie 0x01/0x02: even 0x02 | -2^-11: -0
                        // 15*2^-10: tie between the largest subnormal 7*2^-9 (0x07) and 2^-6 (0x08): even 0x08 | NaN
                        0x38, 0x3A, 0x39, 0xB8, 0x77, 0x7E, 0x7E, 0x7E, 0xFE, 0x7E, 0xFE, 0x01, 0x00, 0x02, 0x80, 0x08, 0x7F),
                // e5m2: 2 mantissa bits, bias 15, codes S.EEEEE.MM; 1.0 = 0x3C; largest finite 57344 = 1.75*2^15 = 0x7B;
                // infinity 0x7C; subnormals k * 2^-16
                rounding(DType.E5M2, "ties to even, saturation to +-57344 (infinities too), gradual underflow, NaN",
                        floatBits(1.125f, 1.375f, 1.125f + 0x1p-20f, -1.125f, 57344, 61440, 1e6f, INF, -INF,
                                0x1p-16f, 0x1p-17f, 3 * 0x1p-17f, -0x1p-18f, 7 * 0x1p-17f, NAN),
                        // 1.125: tie 0x3C/0x3D: even 0x3C | 1.375: tie 0x3D/0x3E: even 0x3E | above: up | negative tie
                        // 57344 | 61440: tie between 57344 and 65536 (past the largest): saturates | 1e6, inf, -inf: saturate
                        // 2^-16 = 0x01 | 2^-17: tie with 0, even 0 | 3*2^-17: tie, even 0x02 | -2^-18: -0
                        // 7*2^-17: tie between the largest subnormal 3*2^-16 (0x03) and 2^-14 (0x04): even 0x04 | NaN
                        0x3C, 0x3E, 0x3D, 0xBC, 0x7B, 0x7B, 0x7B, 0x7B, 0xFB, 0x01, 0x00, 0x02, 0x80, 0x04, 0x7F));
    }

    private static int[] floatBits(float... v) {
        int[] out = new int[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = Float.floatToRawIntBits(v[i]);
        }
        return out;
    }

    /** The f32 values with the given bits, copied by a Generic ({@code in0}) into a buffer of {@code dt}. */
    private static ConformanceCase rounding(DType dt, String what, int[] inputBits, int... expectedCodes) {
        int n = inputBits.length;
        return CaseBuilder.elementwise(Family.DTYPE, dt.jsonName() + "-rounding", "an f32 value stored as " + dt + ": " + what,
                List.of(bits(DType.F32, dims(n), inputBits)), Expr.in(0), bits(dt, dims(n), expectedCodes));
    }

    // ---- casts round inside an expression ----

    private static List<ConformanceCase> casts() {
        return List.of(
                // x - f32(x) = 0 for f32 x; f32(i) for an i32 i rounds to nearest, ties to even:
                // 16777217 = 2^24 + 1 is a tie between 2^24 and 2^24 + 2: even 2^24;
                // -16777219: tie between -16777218 (mantissa odd) and -16777220 (even): -16777220
                twoCasts(DType.F32, f32(dims(2), 0.1f, -3e38f), f32(dims(2), 0, 0),
                        i32(dims(3), 16777217, -16777219, 3), f32(dims(3), 16777216, -16777220, 3)),
                // x - bf16(x): 1+2^-8 -> 1 leaves 2^-8; 1+3*2^-8 -> 1+2^-6 leaves -2^-8; f32 max -> inf leaves -inf.
                // bf16(i) for i32 i = 2^24 + 2^16 + 1 rounds twice, as documented: to f32 first (a tie between
                // 2^24 + 2^16 and 2^24 + 2^16 + 2: even, 2^24 + 2^16), then to bf16 (a tie between 2^24 and
                // 2^24 + 2^17: even, 2^24) = 16777216, where rounding once would give 2^24 + 2^17
                twoCasts(DType.BF16, f32(dims(3), 1 + 0x1p-8f, 1 + 3 * 0x1p-8f, Float.MAX_VALUE), f32(dims(3), 0x1p-8f, -0x1p-8f, -INF),
                        i32(dims(1), (1 << 24) + (1 << 16) + 1), f32(dims(1), 16777216)),
                // x - f16(x): 1+2^-11 -> 1 leaves 2^-11; 65520 -> inf leaves -inf; 2^-25 -> 0 leaves 2^-25;
                // 3*2^-25 -> 2^-23 leaves -2^-25. f16(i) for i = 2049: a tie between 2048 and 2050 (spacing 2): even 2048
                twoCasts(DType.F16, f32(dims(4), 1 + 0x1p-11f, 65520, 0x1p-25f, 3 * 0x1p-25f), f32(dims(4), 0x1p-11f, -INF, 0x1p-25f, -0x1p-25f),
                        i32(dims(1), 2049), f32(dims(1), 2048)),
                // x - e4m3(x): 1.0625 -> 1 leaves 0.0625; 1.1875 -> 1.25 leaves -0.0625; 500 -> 448 (saturated) leaves 52;
                // inf -> 448 leaves inf. e4m3(i) for i = 17: a tie between 16 and 18 (spacing 2): even 16
                twoCasts(DType.E4M3, f32(dims(4), 1.0625f, 1.1875f, 500, INF), f32(dims(4), 0.0625f, -0.0625f, 52, INF),
                        i32(dims(1), 17), f32(dims(1), 16)),
                // x - e5m2(x): 1.125 -> 1 leaves 0.125; 1.375 -> 1.5 leaves -0.125; 70000 -> 57344 leaves 12656;
                // -inf -> -57344 leaves -inf. e5m2(i) for i = 9: a tie between 8 and 10: even 8
                twoCasts(DType.E5M2, f32(dims(4), 1.125f, 1.375f, 70000, -INF), f32(dims(4), 0.125f, -0.125f, 12656, -INF),
                        i32(dims(1), 9), f32(dims(1), 8)),
                i32Cast());
    }

    /**
     * Stage 1: {@code x - dt(x)} over f32 inputs, the rounding error of the cast (f32 output).
     * Stage 2: {@code dt(i)} of an i32 input, written as f32.
     */
    private static ConformanceCase twoCasts(DType dt, Tensor x, Tensor residual, Tensor ints, Tensor castInts) {
        int n = (int) x.size();
        int m = (int) ints.size();
        return CaseBuilder.of(Family.DTYPE, dt.jsonName() + "-cast", "a cast to " + dt + " rounds inside the expression (an i32 argument goes through f32 first)")
                .input("x", x).input("i", ints)
                .output("residual", DType.F32, n).output("of_int", DType.F32, m)
                .buffer("X", DType.F32, n).buffer("I", DType.I32, m).buffer("r", DType.F32, n).buffer("c", DType.F32, m)
                .loadAll("lx", "x", "X").loadAll("li", "i", "I")
                .generic("residual", List.of("X"), "r", Expr.apply(Fn.SUB, Expr.in(0), new Expr.Cast(dt, Expr.in(0))))
                .generic("of-int", List.of("I"), "c", new Expr.Cast(DType.F32, new Expr.Cast(dt, Expr.in(0))))
                .storeAll("s-r", "r", "residual").storeAll("s-c", "c", "of_int")
                .expect("residual", residual)
                .expect("of_int", castInts)
                .build();
    }

    private static ConformanceCase i32Cast() {
        // i32(x) truncates toward zero and saturates; NaN -> 0: 2.9 -> 2, -2.9 -> -2, NaN -> 0, 1e10 -> MAX,
        // -1e10 -> MIN, -inf -> MIN, -0.5 -> 0
        return CaseBuilder.elementwise(Family.DTYPE, "i32-cast", "i32(x) truncates toward zero, saturates, and maps NaN to 0",
                List.of(f32(dims(7), 2.9f, -2.9f, NAN, 1e10f, -1e10f, -INF, -0.5f)), new Expr.Cast(DType.I32, Expr.in(0)),
                i32(dims(7), 2, -2, 0, Integer.MAX_VALUE, Integer.MIN_VALUE, Integer.MIN_VALUE, 0));
    }

    // ---- a stage computes in f32 and rounds once ----

    private static List<ConformanceCase> oneRoundingPerStage() {
        // (a + b) + c with b = c = 1 and a where the spacing is 2, so a + 1 is a tie that rounds back to a:
        // rounding after each add would give a; one rounding at the end gives a + 2, exact in the dtype
        return List.of(
                roundsOnce(DType.BF16, 256, 258),   // bf16 spacing at 256: 2^8 * 2^-7 = 2
                roundsOnce(DType.F16, 2048, 2050),  // f16 spacing at 2048: 2^11 * 2^-10 = 2
                roundsOnce(DType.E4M3, 16, 18),     // e4m3 spacing at 16: 2^4 * 2^-3 = 2
                roundsOnce(DType.E5M2, 8, 10));     // e5m2 spacing at 8: 2^3 * 2^-2 = 2
    }

    private static ConformanceCase roundsOnce(DType dt, float a, float sum) {
        return CaseBuilder.elementwise(Family.DTYPE, dt.jsonName() + "-computes-in-f32",
                "a Generic over " + dt + " buffers computes in f32 and rounds once, at the stage's end",
                List.of(exact(dt, dims(1), a), exact(dt, dims(1), 1), exact(dt, dims(1), 1)),
                Expr.apply(Fn.ADD, Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)), Expr.in(2)), exact(dt, dims(1), sum));
    }

    private static ConformanceCase mixedInputDtypes() {
        // bf16 1.5 + e5m2 0.25 + f16 0.0625 = 1.8125 in f32 (every input widens exactly); stored as e4m3 it is a
        // tie between 1.75 (0x3E, mantissa 110) and 1.875 (0x3F, 111): even, 0x3E
        return CaseBuilder.elementwise(Family.DTYPE, "mixed-input-dtypes", "inputs of different floating dtypes widen exactly and mix as FLOAT",
                List.of(exact(DType.BF16, dims(1), 1.5f), exact(DType.E5M2, dims(1), 0.25f), exact(DType.F16, dims(1), 0.0625f)),
                Expr.apply(Fn.ADD, Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)), Expr.in(2)), bits(DType.E4M3, dims(1), 0x3E));
    }

    private static ConformanceCase e5m2InfinityWidensThenSaturates() {
        // e5m2 codes 0x7C/0xFC are +-inf: widened to f32 they stay infinite; stored back as e5m2 they saturate to +-57344
        Tensor infs = bits(DType.E5M2, dims(2), 0x7C, 0xFC);
        return CaseBuilder.of(Family.DTYPE, "e5m2-infinity", "an e5m2 infinity widens to an f32 infinity; a computed infinity stored as e5m2 saturates")
                .input("x", infs)
                .output("wide", DType.F32, 2).output("narrow", DType.E5M2, 2)
                .buffer("X", DType.E5M2, 2).buffer("w", DType.F32, 2).buffer("n", DType.E5M2, 2)
                .loadAll("load", "x", "X")
                .generic("widen", List.of("X"), "w", new Expr.Cast(DType.F32, Expr.in(0)))
                .generic("renarrow", List.of("X"), "n", Expr.in(0))
                .storeAll("s-w", "w", "wide").storeAll("s-n", "n", "narrow")
                .expect("wide", f32(dims(2), INF, -INF))
                .expect("narrow", bits(DType.E5M2, dims(2), 0x7B, 0xFB))
                .build();
    }
}
