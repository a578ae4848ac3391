package org.stagecheck.conformance;

import static org.stagecheck.conformance.Tensors.bits;
import static org.stagecheck.conformance.Tensors.dims;
import static org.stagecheck.conformance.Tensors.f32;
import static org.stagecheck.conformance.Tensors.i32;
import static org.stagecheck.conformance.Tensors.iota;

import java.util.List;

import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.tensor.Tensor;

/**
 * Compute(Generic) (docs/semantics.md, "Generic"): numpy broadcasting, every arithmetic,
 * comparison and logic function on FLOAT and INT with their edge rules, select, constants,
 * element indices and parameters, and f32 evaluation without contraction. The transcendental
 * functions are in {@link FunctionCases}, casts and storage rounding in {@link DTypeCases}.
 */
final class GenericCases {
    private GenericCases() {
    }

    private static Expr in(int i) {
        return Expr.in(i);
    }

    private static Expr ap(Fn fn, Expr... args) {
        return Expr.apply(fn, args);
    }

    static List<ConformanceCase> cases() {
        return List.of(broadcastARow(), broadcastColumnAndCorner(), broadcastRank3(), selectThenTruncateToI32(),
                causalMaskFromIndexAndParameter(), elementIndicesOfEveryAxis(), f32Arithmetic(), f32MaxMinNaNAndSignedZero(),
                f32NegAbs(), mulThenAddRoundsTwice(), i32WrapAndTruncatingDivision(), i32RemNegAbsMaxMin(),
                comparisonsOnF32WithNaN(), comparisonsOnI32(), logic(), selectOfBooleans(), guardedDivisor(), constants());
    }

    private static ConformanceCase broadcastARow() {
        // [[0,1,2],[3,4,5]] + [0.5,0.5,0.5] (a [3] row broadcast over both rows)
        return CaseBuilder.elementwise(Family.GENERIC, "broadcast-row", "a rank-1 input broadcasts along the output's leading axis",
                List.of(f32(dims(2, 3), iota(6)), f32(dims(3), 0.5f, 0.5f, 0.5f)), ap(Fn.ADD, in(0), in(1)),
                f32(dims(2, 3), 0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f));
    }

    private static ConformanceCase broadcastColumnAndCorner() {
        // x * col + c with x = [[0,1,2],[3,4,5]], col = [[1],[10]], c = [[100]]:
        // row 0: 0+100, 1+100, 2+100; row 1: 30+100, 40+100, 50+100
        return CaseBuilder.elementwise(Family.GENERIC, "broadcast-column-and-corner", "[2,1] and [1,1] inputs broadcast over columns and over everything",
                List.of(f32(dims(2, 3), iota(6)), f32(dims(2, 1), 1, 10), f32(dims(1, 1), 100)),
                ap(Fn.ADD, ap(Fn.MUL, in(0), in(1)), in(2)),
                f32(dims(2, 3), 100, 101, 102, 130, 140, 150));
    }

    private static ConformanceCase broadcastRank3() {
        // a [2,1,3] (a[i][0][k] = 3i + k) + b [2,1] (b[j][0] = 10, 20) -> [2,2,3], out[i][j][k] = 3i + k + b[j]
        return CaseBuilder.elementwise(Family.GENERIC, "broadcast-rank3", "inputs of lower rank align on the right, extents of 1 stretch",
                List.of(f32(dims(2, 1, 3), iota(6)), f32(dims(2, 1), 10, 20)), ap(Fn.ADD, in(0), in(1)),
                f32(dims(2, 2, 3), 10, 11, 12, 20, 21, 22, 13, 14, 15, 23, 24, 25));
    }

    private static ConformanceCase selectThenTruncateToI32() {
        // select(x > 2, x, 0) for x = 0.5 .. 5.5, cast to i32: truncation toward zero, 2.5 -> 2
        return CaseBuilder.elementwise(Family.GENERIC, "select-to-i32", "select picks per element; i32(x) truncates toward zero",
                List.of(f32(dims(2, 3), 0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f)),
                new Expr.Cast(DType.I32, ap(Fn.SELECT, ap(Fn.GT, in(0), Expr.f(2.0)), in(0), Expr.f(0.0))),
                i32(dims(2, 3), 0, 0, 2, 3, 4, 5));
    }

    private static ConformanceCase causalMaskFromIndexAndParameter() {
        // a stage with no inputs: index(1) <= pos ? 0 : -inf, pos = 2, over [1,4]
        return CaseBuilder.of(Family.GENERIC, "causal-mask", "index(axis) and param(name) are i32 values; a Generic may have no inputs")
                .param("pos", 0, 3, 2)
                .output("out", DType.F32, 1, 4)
                .buffer("mask", DType.F32, 1, 4)
                .generic("mask", List.of(), "mask", ap(Fn.SELECT, ap(Fn.LE, new Expr.Index(1), new Expr.ParamRef("pos")),
                        Expr.f(0.0), Expr.f(Double.NEGATIVE_INFINITY)))
                .storeAll("store", "mask", "out")
                .expect("out", f32(dims(1, 4), 0, 0, 0, Float.NEGATIVE_INFINITY))
                .build();
    }

    private static ConformanceCase elementIndicesOfEveryAxis() {
        // 10*index(0) + index(1) + n over [2,3] with n = -1: [[-1,0,1],[9,10,11]]
        return CaseBuilder.of(Family.GENERIC, "element-indices", "index(axis) is the element's coordinate on that axis")
                .param("n", -5, 5, -1)
                .output("out", DType.I32, 2, 3)
                .buffer("y", DType.I32, 2, 3)
                .generic("eval", List.of(), "y", ap(Fn.ADD, ap(Fn.ADD, ap(Fn.MUL, Expr.i(10), new Expr.Index(0)), new Expr.Index(1)),
                        new Expr.ParamRef("n")))
                .storeAll("store", "y", "out")
                .expect("out", i32(dims(2, 3), -1, 0, 1, 9, 10, 11))
                .build();
    }

    private static ConformanceCase f32Arithmetic() {
        // ((a + b) * (a - b)) / b per element, and rem(a, b) separately:
        //   a=3, b=1:   (4 * 2) / 1 = 8
        //   a=5, b=-2:  (3 * 7) / -2 = -10.5
        //   a=1, b=0:   (1 * 1) / 0 = +inf
        //   a=0, b=0:   (0 * 0) / 0 = NaN
        //   a=3e38, b=3e38: (inf * 0) / 3e38 = NaN   (3e38 + 3e38 overflows to +inf)
        CaseBuilder b = CaseBuilder.of(Family.GENERIC, "f32-arithmetic", "add sub mul div rem are IEEE f32 operations, rem truncated with the dividend's sign")
                .input("a", f32(dims(5), 3, 5, 1, 0, 3e38f))
                .input("b", f32(dims(5), 1, -2, 0, 0, 3e38f))
                .input("c", f32(dims(4), 5.5f, -5.5f, 5.5f, 7))
                .input("d", f32(dims(4), 2, 2, -2, 0))
                .buffer("A", DType.F32, 5).buffer("B", DType.F32, 5).buffer("C", DType.F32, 4).buffer("D", DType.F32, 4)
                .buffer("q", DType.F32, 5).buffer("r", DType.F32, 4)
                .output("quot", DType.F32, 5).output("rem", DType.F32, 4)
                .loadAll("la", "a", "A").loadAll("lb", "b", "B").loadAll("lc", "c", "C").loadAll("ld", "d", "D")
                .generic("quot", List.of("A", "B"), "q", ap(Fn.DIV, ap(Fn.MUL, ap(Fn.ADD, in(0), in(1)), ap(Fn.SUB, in(0), in(1))), in(1)))
                // 5.5 rem 2 = 1.5; -5.5 rem 2 = -1.5; 5.5 rem -2 = 1.5; 7 rem 0 = NaN
                .generic("rem", List.of("C", "D"), "r", ap(Fn.REM, in(0), in(1)))
                .storeAll("sq", "q", "quot").storeAll("sr", "r", "rem");
        return b.expect("quot", f32(dims(5), 8, -10.5f, Float.POSITIVE_INFINITY, Float.NaN, Float.NaN))
                .expect("rem", f32(dims(4), 1.5f, -1.5f, 1.5f, Float.NaN))
                .build();
    }

    private static ConformanceCase f32MaxMinNaNAndSignedZero() {
        // pairs (1,2), (NaN,1), (-0,+0), (+0,-0), (-inf,-1e30)
        //   max: 2, NaN, +0, +0, -1e30      min: 1, NaN, -0, -0, -inf
        List<Tensor> pairs = List.of(f32(dims(5), 1, Float.NaN, -0f, 0f, Float.NEGATIVE_INFINITY), f32(dims(5), 2, 1, 0f, -0f, -1e30f));
        return CaseBuilder.of(Family.GENERIC, "f32-max-min", "max/min propagate NaN and order -0 below +0 (unlike C's fmaxf/fminf)")
                .input("a", pairs.get(0)).input("b", pairs.get(1))
                .buffer("A", DType.F32, 5).buffer("B", DType.F32, 5).buffer("hi", DType.F32, 5).buffer("lo", DType.F32, 5)
                .output("max", DType.F32, 5).output("min", DType.F32, 5)
                .loadAll("la", "a", "A").loadAll("lb", "b", "B")
                .generic("max", List.of("A", "B"), "hi", ap(Fn.MAX, in(0), in(1)))
                .generic("min", List.of("A", "B"), "lo", ap(Fn.MIN, in(0), in(1)))
                .storeAll("s-max", "hi", "max").storeAll("s-min", "lo", "min")
                .expect("max", bits(DType.F32, dims(5), 0x40000000, 0x7FC00000, 0x00000000, 0x00000000, Float.floatToRawIntBits(-1e30f)))
                .expect("min", bits(DType.F32, dims(5), 0x3F800000, 0x7FC00000, 0x80000000, 0x80000000, 0xFF800000))
                .build();
    }

    private static ConformanceCase f32NegAbs() {
        // neg: +0 -> -0, -3 -> 3, inf -> -inf; abs: -0 -> +0, -3 -> 3, -inf -> inf
        return CaseBuilder.of(Family.GENERIC, "f32-neg-abs", "neg flips and abs clears the sign bit, zeros and infinities included")
                .input("x", f32(dims(3), 0f, -3, Float.POSITIVE_INFINITY))
                .input("z", f32(dims(3), -0f, -3, Float.NEGATIVE_INFINITY))
                .buffer("X", DType.F32, 3).buffer("Z", DType.F32, 3).buffer("n", DType.F32, 3).buffer("a", DType.F32, 3)
                .output("neg", DType.F32, 3).output("abs", DType.F32, 3)
                .loadAll("lx", "x", "X").loadAll("lz", "z", "Z")
                .generic("neg", List.of("X"), "n", ap(Fn.NEG, in(0)))
                .generic("abs", List.of("Z"), "a", ap(Fn.ABS, in(0)))
                .storeAll("s-neg", "n", "neg").storeAll("s-abs", "a", "abs")
                .expect("neg", bits(DType.F32, dims(3), 0x80000000, 0x40400000, 0xFF800000))
                .expect("abs", bits(DType.F32, dims(3), 0x00000000, 0x40400000, 0x7F800000))
                .build();
    }

    private static ConformanceCase mulThenAddRoundsTwice() {
        // a = b = 1 + 2^-12, c = -(1 + 2^-11). a*b = 1 + 2^-11 + 2^-24 exactly; 2^-24 is half an f32 ulp
        // at 1, a tie, and the even neighbour is 1 + 2^-11; so a*b + c = 0. A fused multiply-add would
        // give 2^-24: a backend must not contract mul and add in a Generic.
        float a = 1f + 0x1p-12f;
        return CaseBuilder.elementwise(Family.GENERIC, "mul-add-not-fused", "a Generic rounds every operation to f32: mul then add is not an fma",
                List.of(f32(dims(1), a), f32(dims(1), a), f32(dims(1), -(1f + 0x1p-11f))),
                ap(Fn.ADD, ap(Fn.MUL, in(0), in(1)), in(2)),
                bits(DType.F32, dims(1), 0x00000000));
    }

    private static ConformanceCase i32WrapAndTruncatingDivision() {
        // x = [MAX, -7, 7], d = [1, 2, -2]: x + d = [MIN (wraps), -5, 5]; x / d = [MAX, -3, -3] (toward zero)
        return CaseBuilder.of(Family.GENERIC, "i32-wrap-and-divide", "i32 add wraps around; division truncates toward zero")
                .input("x", i32(dims(3), Integer.MAX_VALUE, -7, 7))
                .input("d", i32(dims(3), 1, 2, -2))
                .buffer("X", DType.I32, 3).buffer("D", DType.I32, 3).buffer("s", DType.I32, 3).buffer("q", DType.I32, 3)
                .output("sum", DType.I32, 3).output("quot", DType.I32, 3)
                .loadAll("lx", "x", "X").loadAll("ld", "d", "D")
                .generic("sum", List.of("X", "D"), "s", ap(Fn.ADD, in(0), in(1)))
                .generic("div", List.of("X", "D"), "q", ap(Fn.DIV, in(0), in(1)))
                .storeAll("s-sum", "s", "sum").storeAll("s-quot", "q", "quot")
                .expect("sum", i32(dims(3), Integer.MIN_VALUE, -5, 5))
                .expect("quot", i32(dims(3), Integer.MAX_VALUE, -3, -3))
                .build();
    }

    private static ConformanceCase i32RemNegAbsMaxMin() {
        // x = [-7, 7, MIN, 3], y = [2, -2, 1, -4]
        //   rem(x,y) = [-1, 1, 0, 3]   (sign of the dividend)
        //   neg(x) = [7, -7, MIN (wraps), -3]; abs(x) = [7, 7, MIN (wraps), 3]
        //   max(x,y) = [2, 7, 1, 3]; min(x,y) = [-7, -2, MIN, -4]; one stage and output each
        CaseBuilder b = CaseBuilder.of(Family.GENERIC, "i32-rem-neg-abs-max-min", "i32 rem has the dividend's sign; neg and abs of MIN wrap to MIN")
                .input("x", i32(dims(4), -7, 7, Integer.MIN_VALUE, 3))
                .input("y", i32(dims(4), 2, -2, 1, -4))
                .buffer("X", DType.I32, 4).buffer("Y", DType.I32, 4)
                .loadAll("lx", "x", "X").loadAll("ly", "y", "Y");
        String[] names = {"rem", "neg", "abs", "max", "min"};
        Expr[] exprs = {ap(Fn.REM, in(0), in(1)), ap(Fn.NEG, in(0)), ap(Fn.ABS, in(0)), ap(Fn.MAX, in(0), in(1)), ap(Fn.MIN, in(0), in(1))};
        Tensor[] want = {i32(dims(4), -1, 1, 0, 3), i32(dims(4), 7, -7, Integer.MIN_VALUE, -3), i32(dims(4), 7, 7, Integer.MIN_VALUE, 3),
                i32(dims(4), 2, 7, 1, 3), i32(dims(4), -7, -2, Integer.MIN_VALUE, -4)};
        for (int k = 0; k < names.length; k++) {
            b.buffer("r" + k, DType.I32, 4).output(names[k], DType.I32, 4)
                    .generic("eval-" + names[k], List.of("X", "Y"), "r" + k, exprs[k])
                    .storeAll("store-" + names[k], "r" + k, names[k])
                    .expect(names[k], want[k]);
        }
        return b.build();
    }

    /** i32(eq)*1 + i32(ne)*2 + i32(lt)*4 + i32(le)*8 + i32(gt)*16 + i32(ge)*32: all six comparisons in one number. */
    private static Expr comparisonFlags() {
        Fn[] fns = {Fn.EQ, Fn.NE, Fn.LT, Fn.LE, Fn.GT, Fn.GE};
        Expr acc = Expr.i(0);
        for (int k = 0; k < fns.length; k++) {
            acc = ap(Fn.ADD, acc, ap(Fn.MUL, new Expr.Cast(DType.I32, ap(fns[k], in(0), in(1))), Expr.i(1 << k)));
        }
        return acc;
    }

    private static ConformanceCase comparisonsOnF32WithNaN() {
        // (1,2): ne+lt+le = 2+4+8 = 14; (2,2): eq+le+ge = 1+8+32 = 41; (3,2): ne+gt+ge = 2+16+32 = 50;
        // (NaN,1): only ne = 2; (-0,+0): equal, 41; (-inf,inf): 14
        return CaseBuilder.elementwise(Family.GENERIC, "compare-f32", "comparisons are IEEE: every one with NaN is false except ne; -0 equals +0",
                List.of(f32(dims(6), 1, 2, 3, Float.NaN, -0f, Float.NEGATIVE_INFINITY), f32(dims(6), 2, 2, 2, 1, 0f, Float.POSITIVE_INFINITY)),
                comparisonFlags(), i32(dims(6), 14, 41, 50, 2, 41, 14));
    }

    private static ConformanceCase comparisonsOnI32() {
        // (1,2): 14; (2,2): 41; (3,2): 50; (MIN,MAX): 14; (MAX,MIN): 50
        return CaseBuilder.elementwise(Family.GENERIC, "compare-i32", "comparisons on i32 are exact and signed",
                List.of(i32(dims(5), 1, 2, 3, Integer.MIN_VALUE, Integer.MAX_VALUE), i32(dims(5), 2, 2, 2, Integer.MAX_VALUE, Integer.MIN_VALUE)),
                comparisonFlags(), i32(dims(5), 14, 41, 50, 14, 50));
    }

    private static ConformanceCase logic() {
        // p = x > 0, q = y > 0 over (T,T), (T,F), (F,T), (F,F):
        // i32(and)*1 + i32(or)*2 + i32(not p)*4 = 3, 2, 6, 4
        Expr p = ap(Fn.GT, in(0), Expr.f(0.0));
        Expr q = ap(Fn.GT, in(1), Expr.f(0.0));
        Expr e = ap(Fn.ADD, ap(Fn.ADD, new Expr.Cast(DType.I32, ap(Fn.AND, p, q)),
                        ap(Fn.MUL, new Expr.Cast(DType.I32, ap(Fn.OR, p, q)), Expr.i(2))),
                ap(Fn.MUL, new Expr.Cast(DType.I32, ap(Fn.NOT, p)), Expr.i(4)));
        return CaseBuilder.elementwise(Family.GENERIC, "logic", "and, or, not on BOOL; a BOOL cast to i32 is 0 or 1",
                List.of(f32(dims(4), 1, 1, -1, -1), f32(dims(4), 1, -1, 1, -1)), e, i32(dims(4), 3, 2, 6, 4));
    }

    private static ConformanceCase selectOfBooleans() {
        // f32(select(x > 0, x < 10, x > 100)): x = 5 -> (5 < 10) = 1.0; x = 20 -> (20 < 10) = 0.0;
        // x = -1 -> (-1 > 100) = 0.0
        Expr e = new Expr.Cast(DType.F32, ap(Fn.SELECT, ap(Fn.GT, in(0), Expr.f(0.0)), ap(Fn.LT, in(0), Expr.f(10.0)), ap(Fn.GT, in(0), Expr.f(100.0))));
        return CaseBuilder.elementwise(Family.GENERIC, "select-booleans", "select takes BOOL branches too; f32 of a BOOL is 0.0 or 1.0",
                List.of(f32(dims(3), 5, 20, -1)), e, f32(dims(3), 1, 0, 0));
    }

    private static ConformanceCase guardedDivisor() {
        // div(a, select(b == 0, 1, b)) for a = [7, 7, -9], b = [0, 2, 4]: [7, 3, -2]
        return CaseBuilder.elementwise(Family.GENERIC, "i32-guarded-divisor", "an i32 divisor guarded by select never divides by zero",
                List.of(i32(dims(3), 7, 7, -9), i32(dims(3), 0, 2, 4)),
                ap(Fn.DIV, in(0), ap(Fn.SELECT, ap(Fn.EQ, in(1), Expr.i(0)), Expr.i(1), in(1))), i32(dims(3), 7, 3, -2));
    }

    private static ConformanceCase constants() {
        // a float constant is rounded to f32 when evaluated: 0.1 -> 0x3DCCCCCD; 1e40 overflows to +inf;
        // -2.5 is exact. Each added to x = 0.
        Expr e = ap(Fn.ADD, in(0), ap(Fn.SELECT, ap(Fn.EQ, new Expr.Index(0), Expr.i(0)), Expr.f(0.1),
                ap(Fn.SELECT, ap(Fn.EQ, new Expr.Index(0), Expr.i(1)), Expr.f(1e40), Expr.f(-2.5))));
        return CaseBuilder.elementwise(Family.GENERIC, "float-constants", "a float constant is rounded to f32 once, to nearest (1e40 becomes +inf)",
                List.of(f32(dims(3), 0, 0, 0)), e, bits(DType.F32, dims(3), 0x3DCCCCCD, 0x7F800000, 0xC0200000));
    }
}
