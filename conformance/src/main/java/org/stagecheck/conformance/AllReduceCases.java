package org.stagecheck.conformance;

import static org.stagecheck.conformance.Tensors.bits;
import static org.stagecheck.conformance.Tensors.dims;
import static org.stagecheck.conformance.Tensors.exact;
import static org.stagecheck.conformance.Tensors.f32;
import static org.stagecheck.conformance.Tensors.i32;

import java.util.ArrayList;
import java.util.List;

import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.tensor.Tensor;

/**
 * AllReduce (docs/semantics.md, "AllReduce"): the combine folds the partials in port order in
 * f32 and rounds once to the output dtype; every output gets the result; each pool (sum, max,
 * min) with its NaN and signed-zero rules.
 */
final class AllReduceCases {
    private AllReduceCases() {
    }

    static List<ConformanceCase> cases() {
        return List.of(
                // chip 0 [1,2,3] + chip 1 [10,20,30]
                allReduce("sum-two-chips", "every member's output receives the sum of the partials", ReducePool.SUM,
                        List.of(f32(dims(3), 1, 2, 3), f32(dims(3), 10, 20, 30)), f32(dims(3), 11, 22, 33)),
                // element 0: (1e8 + -1e8) + 1 = 1; element 1: (1 + -1e8) + 1e8: 1 - 1e8 = -99999999 is
                // 1 from -1e8 and 7 from -99999992 (f32 spacing 8 there), so it rounds to -1e8 and the sum is 0
                allReduce("sum-port-order", "the port order is the fold order: ((in0 + in1) + in2), each step rounded to f32", ReducePool.SUM,
                        List.of(f32(dims(2), 1e8f, 1), f32(dims(2), -1e8f, -1e8f), f32(dims(2), 1, 1e8f)), f32(dims(2), 1, 0)),
                // bf16 partials 256, 1, 1: f32 (256 + 1) + 1 = 258, exact in bf16; rounding every step
                // to bf16 would give 256 (257 is a tie between 256 and 258, even is 256)
                allReduce("sum-bf16-rounds-once", "bf16 partials are folded in f32 and rounded once", ReducePool.SUM,
                        List.of(exact(DType.BF16, dims(1), 256), exact(DType.BF16, dims(1), 1), exact(DType.BF16, dims(1), 1)),
                        exact(DType.BF16, dims(1), 258)),
                // i32: MAX + 1 wraps to MIN; 5 + -7 = -2
                allReduce("sum-i32-wraps", "i32 partials add with wrap-around", ReducePool.SUM,
                        List.of(i32(dims(2), Integer.MAX_VALUE, 5), i32(dims(2), 1, -7)), i32(dims(2), Integer.MIN_VALUE, -2)),
                // max(1,5) = 5; max(-0,+0) = +0; max(NaN,3) = NaN; max(2,NaN) = NaN (NaN propagates, unlike C's fmaxf)
                allReduce("max-nan-and-signed-zero", "max propagates NaN and orders -0 below +0", ReducePool.MAX,
                        List.of(f32(dims(4), 1, -0f, Float.NaN, 2), f32(dims(4), 5, 0f, 3, Float.NaN)),
                        bits(DType.F32, dims(4), 0x40A00000, 0x00000000, 0x7FC00000, 0x7FC00000)),
                // min(1,5) = 1; min(+0,-0) = -0; min(NaN,3) = NaN
                allReduce("min-nan-and-signed-zero", "min propagates NaN and orders -0 below +0", ReducePool.MIN,
                        List.of(f32(dims(3), 1, 0f, Float.NaN), f32(dims(3), 5, -0f, 3)),
                        bits(DType.F32, dims(3), 0x3F800000, 0x80000000, 0x7FC00000)));
    }

    /**
     * Partial {@code i} bound on chip {@code i}, loaded there; the AllReduce runs on chip 0 and
     * writes one output per chip, which each chip stores to its own output tensor {@code out<i>}.
     */
    private static ConformanceCase allReduce(String name, String what, ReducePool pool, List<Tensor> partials, Tensor expected) {
        int chips = partials.size();
        DType dt = expected.dtype();
        int[] shape = expected.shape().toArray();
        CaseBuilder b = CaseBuilder.of(Family.ALL_REDUCE, name, what).machine(chips, 1, 1);
        List<String> ins = new ArrayList<>();
        List<String> outs = new ArrayList<>();
        for (int c = 0; c < chips; c++) {
            Site s = Site.of(c, 0, 0);
            b.tensor("p" + c, TensorRole.INPUT, c, partials.get(c))
                    .output("out" + c, c, dt, shape)
                    .buffer("part" + c, dt, s, shape)
                    .buffer("sum" + c, dt, s, shape)
                    .loadAll("load" + c, "p" + c, "part" + c);
            ins.add("part" + c);
            outs.add("sum" + c);
        }
        b.stage("allreduce", Site.of(0, 0, 0), ins, outs, StageKind.AllReduce.of(pool, "y", chips));
        for (int c = 0; c < chips; c++) {
            b.storeAll("store" + c, "sum" + c, "out" + c).expect("out" + c, expected);
        }
        return b.build();
    }
}
