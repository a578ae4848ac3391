package org.stagecheck.cuda.lower;

import java.util.List;
import java.util.Map;

import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.rules.OpRules;

/**
 * Which stages fast kernels split ({@link Split}) and the scratch regions of their partials, on
 * the stage's chip: {@code [chunks, outputs]} in f32 (i32 for an integer reduce), and for an
 * arg-max a second i32 region of the chunks' indices. Decided in the lowering's first walk, before
 * the memory plan is laid out; a stage whose shapes break the language's rules is not split (its
 * kernel's own checks then report it).
 */
final class SplitRegions {
    private SplitRegions() {
    }

    /** Records the split of stage {@code i}, if any, in {@code splits} and its scratch in {@code extras}. */
    static void plan(int i, Stage st, Map<String, BufferDecl> buffers, Map<Integer, Split> splits, List<MemoryPlan.Extra> extras) {
        if (!(st.kind() instanceof StageKind.Compute c) || st.ins().isEmpty()) {
            return;
        }
        int chip = st.site().chip();
        switch (c.op()) {
            case ComputeOp.MatMul mm -> {
                BufferDecl a = buffers.get(st.ins().get(0));
                BufferDecl b = st.ins().size() > 1 ? buffers.get(st.ins().get(1)) : null;
                OpRules.Product p = a == null || b == null ? null : OpRules.product(a.shape(), b.shape(), mm.transposeA(), mm.transposeB());
                Split split = p == null ? null : Split.ofMatMul(p.m(), p.k());
                if (split != null) {
                    splits.put(i, split);
                    extras.add(new MemoryPlan.Extra(partialsKey(i), "partials of stage '" + st.id() + "'", chip, DType.F32,
                            Shape.of(split.chunks(), p.m() * p.n())));
                }
            }
            case ComputeOp.Reduce r -> {
                BufferDecl in = buffers.get(st.ins().getFirst());
                if (in == null || r.axis() < 0 || r.axis() >= in.shape().rank()) {
                    return;
                }
                int[] dims = in.shape().toArray();
                long outputs = in.shape().elementCount() / Math.max(1, dims[r.axis()]);
                Split split = Split.of(dims[r.axis()]);
                if (split == null) {
                    return;
                }
                splits.put(i, split);
                DType value = CText.computesAsInt(in.dtype()) ? DType.I32 : DType.F32;
                extras.add(new MemoryPlan.Extra(partialsKey(i), "partials of stage '" + st.id() + "'", chip, value,
                        Shape.of(split.chunks(), Math.toIntExact(outputs))));
                if (r.fn() == ReduceFn.ARGMAX) {
                    extras.add(new MemoryPlan.Extra(indicesKey(i), "partial arg-max indices of stage '" + st.id() + "'", chip,
                            DType.I32, Shape.of(split.chunks(), Math.toIntExact(outputs))));
                }
            }
            case ComputeOp.Generic g -> { }
            case ComputeOp.Reshape rs -> { }
            case ComputeOp.Transpose t -> { }
            case ComputeOp.Slice s -> { }
            case ComputeOp.Concat cc -> { }
        }
    }

    /** The partials' region of stage {@code i}, or null when it is not split. */
    static Placed partials(MemoryPlan plan, int i, Map<Integer, Split> splits) {
        return splits.containsKey(i) ? plan.extra(partialsKey(i)) : null;
    }

    /** The arg-max indices' region of stage {@code i}, or null when it is not a split arg-max. */
    static Placed indices(MemoryPlan plan, int i, Map<Integer, Split> splits, ComputeOp.Reduce r) {
        return splits.containsKey(i) && r.fn() == ReduceFn.ARGMAX ? plan.extra(indicesKey(i)) : null;
    }

    private static String partialsKey(int i) {
        return "split:" + i;
    }

    private static String indicesKey(int i) {
        return "split-index:" + i;
    }
}
