package org.stagecheck.conformance;

import static org.stagecheck.conformance.Tensors.bits;
import static org.stagecheck.conformance.Tensors.dims;
import static org.stagecheck.conformance.Tensors.exact;
import static org.stagecheck.conformance.Tensors.f32;
import static org.stagecheck.conformance.Tensors.i32;
import static org.stagecheck.conformance.Tensors.iota;

import java.util.List;

import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.tensor.Tensor;

/**
 * Compute(Reduce) (docs/semantics.md, "Reduce"): sum folds in index order in f32 and rounds once;
 * max/min propagate NaN and order -0 below +0; argmax takes the first maximum, a NaN counting as
 * the maximum; i32 wraps; empty axes give the identities.
 */
final class ReduceCases {
    private ReduceCases() {
    }

    static List<ConformanceCase> cases() {
        return List.of(
                // axis 0 of [[1e8,2],[1,3],[-1e8,4]]: column 0 (1e8 + 1) + -1e8: 1e8 + 1 rounds to 1e8 (f32
                // spacing 8 there), so 0; column 1: 2 + 3 + 4 = 9
                reduce("sum-in-index-order", "sum folds along the axis in index order, each step rounded to f32", ReduceFn.SUM, 0,
                        f32(dims(3, 2), 1e8f, 2, 1, 3, -1e8f, 4), f32(dims(1, 2), 0, 9)),
                // acc starts at x[0], not at +0: (-0 + -0) + -0 = -0; (-0 + +0) + -0 = +0 (an IEEE sum of zeros of
                // different signs is +0). A fold started from +0 would give +0 for both.
                reduce("sum-starts-at-first-element", "a sum starts from the first element, so zeros keep their sign", ReduceFn.SUM, 1,
                        f32(dims(2, 3), -0f, -0f, -0f, -0f, 0f, -0f), bits(DType.F32, dims(2, 1), 0x80000000, 0x00000000)),
                // x[i][j][k] = 6i + 2j + k over [2,3,2]; sum over j: 3(6i + k) + 2(0+1+2) = 18i + 3k + 6
                reduce("sum-middle-axis", "the reduced axis is kept with extent 1, whatever its position", ReduceFn.SUM, 1,
                        f32(dims(2, 3, 2), iota(12)), f32(dims(2, 1, 2), 6, 9, 24, 27)),
                // rows [1,NaN,3], [-0,+0,-0], [+0,-0,+0], [-5,-inf,2]: max = NaN, +0, +0, 2
                reduce("max-nan-and-signed-zero", "max propagates NaN and orders -0 below +0", ReduceFn.MAX, 1, signed(),
                        bits(DType.F32, dims(4, 1), 0x7FC00000, 0x00000000, 0x00000000, 0x40000000)),
                // the same rows: min = NaN, -0, -0, -inf
                reduce("min-nan-and-signed-zero", "min propagates NaN and orders -0 below +0", ReduceFn.MIN, 1, signed(),
                        bits(DType.F32, dims(4, 1), 0x7FC00000, 0x80000000, 0x80000000, 0xFF800000)),
                // rows [1,3,3,2] -> 1 (first of the equal maxima); [-1,5,NaN,NaN] -> 2 (the first NaN); [-2,-1,-1,-3] -> 1
                reduce("argmax-first-and-nan", "argmax is the first index of the maximum; a NaN counts as the maximum", ReduceFn.ARGMAX, 1,
                        f32(dims(3, 4), 1, 3, 3, 2, -1, 5, Float.NaN, Float.NaN, -2, -1, -1, -3), i32(dims(3, 1), 1, 2, 1)),
                // bf16 [256, 1, 1]: f32 (256 + 1) + 1 = 258, exact in bf16; rounding each step to bf16 would stay at 256
                reduce("sum-bf16-rounds-once", "a bf16 sum accumulates in f32 and rounds once", ReduceFn.SUM, 1,
                        exact(DType.BF16, dims(1, 3), 256, 1, 1), exact(DType.BF16, dims(1, 1), 258)),
                // the same bf16 input summed into an f32 output: 258
                reduce("sum-bf16-into-f32", "a reduction may write another floating dtype than it reads", ReduceFn.SUM, 1,
                        exact(DType.BF16, dims(1, 3), 256, 1, 1), f32(dims(1, 1), 258)),
                // i32 [MAX, 1, 5]: (MAX + 1) wraps to MIN, + 5 = MIN + 5 = -2147483643
                reduce("sum-i32-wraps", "an i32 sum wraps around", ReduceFn.SUM, 1,
                        i32(dims(1, 3), Integer.MAX_VALUE, 1, 5), i32(dims(1, 1), Integer.MIN_VALUE + 5)),
                reduce("max-i32", "i32 max", ReduceFn.MAX, 1, i32(dims(1, 3), Integer.MIN_VALUE, 7, -9), i32(dims(1, 1), 7)),
                reduce("min-i32", "i32 min", ReduceFn.MIN, 1, i32(dims(1, 3), 7, Integer.MIN_VALUE, -9), i32(dims(1, 1), Integer.MIN_VALUE)),
                // [MAX, 1, MAX]: the first maximum is index 0
                reduce("argmax-i32", "argmax over i32", ReduceFn.ARGMAX, 1, i32(dims(1, 3), Integer.MAX_VALUE, 1, Integer.MAX_VALUE), i32(dims(1, 1), 0)),
                // an empty axis: sum = +0, max = -inf, min = +inf
                reduce("sum-empty-axis", "the sum over an empty axis is +0", ReduceFn.SUM, 1, f32(dims(2, 0)), f32(dims(2, 1), 0, 0)),
                reduce("max-empty-axis", "the max over an empty axis is -inf", ReduceFn.MAX, 1, f32(dims(2, 0)),
                        f32(dims(2, 1), Float.NEGATIVE_INFINITY, Float.NEGATIVE_INFINITY)),
                reduce("min-empty-axis", "the min over an empty axis is +inf", ReduceFn.MIN, 1, f32(dims(2, 0)),
                        f32(dims(2, 1), Float.POSITIVE_INFINITY, Float.POSITIVE_INFINITY)));
    }

    private static Tensor signed() {
        return f32(dims(4, 3), 1, Float.NaN, 3, -0f, 0f, -0f, 0f, -0f, 0f, -5, Float.NEGATIVE_INFINITY, 2);
    }

    private static ConformanceCase reduce(String name, String what, ReduceFn fn, int axis, Tensor x, Tensor expected) {
        return CaseBuilder.of(Family.REDUCE, name, what)
                .input("x", x)
                .output("out", expected.dtype(), expected.shape().toArray())
                .buffer("X", x.dtype(), x.shape().toArray())
                .buffer("r", expected.dtype(), expected.shape().toArray())
                .loadAll("load", "x", "X")
                .compute("reduce", List.of("X"), "r", new ComputeOp.Reduce(fn, axis))
                .storeAll("store", "r", "out")
                .expect("out", expected)
                .build();
    }
}
