package org.stagecheck.verifier.shard;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.verifier.Code;

/**
 * Partials rounded to a format whose range they can exceed (docs/verifier.md, "Ranges of
 * partials"). Rounding is not linear once a value leaves a format's finite range: f16 overflows
 * to infinity past 65504, e4m3 saturates at 448, so the sum of the chips' rounded partials is
 * not the rounded sum even when the sum itself fits. Significand bits ({@link Precision}) cannot
 * see this: a parent that rounds its output to f16 passes through f16 as much as a split that
 * rounds every partial to f16 before the all-reduce.
 *
 * <p>This pass follows, alongside the UnreducedShard pass, a bound on every value's magnitude
 * ({@link ValueBounds}) and records each point where a partial (a chip's share, not yet complete)
 * is rounded to a format narrower than f32 whose largest finite value its bound exceeds: a buffer
 * of that dtype, a cast in an expression or combine, a tensor stored to. Given the unsplit
 * parent, each such point of the split where the parent does not round the same partial (the
 * same contraction over the same slices) to the same format on the way to one of its outputs is
 * {@code PARTIAL_RANGE_NARROWED}: a rounding of the parent's at a stage that no output or state
 * tensor depends on (a buffer nothing reads) licenses nothing ({@link #reachingOutputs}).
 * One pass, O(1) per buffer reference and expression node, and one backward pass over the
 * parent's dataflow when it rounds a partial at all.
 */
final class PartialNarrowing {
    private final ShardState st;
    private final Map<String, Param> params = new HashMap<>();
    private final Map<String, Double> buffers = new HashMap<>();
    private final Map<String, Double> tensors = new HashMap<>();
    private final Map<String, Double> inFlight = new HashMap<>();
    /** Every partial this analysis rounded past a format's range: its key ({@code partial key|dtype}) and the stage that rounded it. */
    private final List<Point> points = new ArrayList<>();

    private record Point(String key, int stage) {}

    /** The parent's roundings that reach one of its outputs, when this analysis is compared with one; else null (nothing is reported). */
    private Set<String> parent;
    /** False for a program checked alone: nothing would be compared, so nothing is followed. */
    private boolean on = true;

    PartialNarrowing(ShardState st) {
        this.st = st;
        st.index.program().params().forEach(p -> params.put(p.name(), p));
        for (TensorDecl t : st.index.program().tensors()) {
            tensors.put(t.name(), t.role().isBoundBeforeRun() ? ValueBounds.maxFinite(t.dtype()) : 0.0);
        }
    }

    /** Reports, from now on, the points where the parent (the analysis given) does not round the same partial on the way to an output. */
    void compareWith(PartialNarrowing parentAnalysis) {
        this.parent = parentAnalysis.reachingOutputs();
    }

    /**
     * The roundings recorded here that an output or state tensor's value was computed from: those
     * made at a stage that some store into such a tensor depends on, through the stages whose
     * results each reads (buffers' last writers, a load's earlier stores, a receive's multicast),
     * found by one backward pass over the dataflow (made only when there is a rounding to judge).
     */
    private Set<String> reachingOutputs() {
        if (points.isEmpty()) {
            return Set.of();
        }
        org.stagecheck.spec.ir.Program program = st.index.program();
        org.stagecheck.spec.flow.Dataflow flow = org.stagecheck.spec.flow.Dataflow.of(program);
        boolean[] live = new boolean[program.stages().size()];
        java.util.ArrayDeque<Integer> todo = new java.util.ArrayDeque<>();
        for (int i = 0; i < live.length; i++) {
            TensorDecl stored = program.stages().get(i).kind() instanceof StageKind.Store w ? st.index.tensor(w.tensor()) : null;
            if (stored != null && stored.role().isResult()) {
                live[i] = true;
                todo.push(i);
            }
        }
        while (!todo.isEmpty()) {
            for (int producer : flow.producers(todo.pop())) {
                if (!live[producer]) {
                    live[producer] = true;
                    todo.push(producer);
                }
            }
        }
        Set<String> reaching = new HashSet<>();
        for (Point p : points) {
            if (live[p.stage()]) {
                reaching.add(p.key());
            }
        }
        return reaching;
    }

    /** Follows nothing from now on (a program checked without a parent). */
    void off() {
        on = false;
    }

    /** The current stage of {@code st}, whose outputs are {@code out} (not yet recorded in {@code st.values}). */
    void stage(List<Val> out) {
        if (!on) {
            return;
        }
        Stage s = st.stage;
        List<Double> ins = new ArrayList<>(s.ins().size());
        for (String b : s.ins()) {
            ins.add(bound(b));
        }
        List<ValueBounds.Cast> casts = new ArrayList<>();
        double value = switch (s.kind()) {
            case StageKind.Load l -> {
                double v = tensors.getOrDefault(l.tensor(), ValueBounds.UNBOUNDED);
                if (l.multicast() != null) {
                    inFlight.put(l.multicast(), v);
                }
                yield v;
            }
            case StageKind.Store w -> {
                store(w, ins.isEmpty() ? 0 : ins.getFirst());
                yield 0;
            }
            case StageKind.Recv r -> inFlight.getOrDefault(r.group(), ValueBounds.UNBOUNDED);
            case StageKind.AllReduce a -> {
                double v = ValueBounds.of(a.combine().expr(), ins, params, casts);
                for (int p = 0; p < s.ins().size(); p++) {
                    if (st.value(s.ins().get(p)) instanceof Val.Partial part) {
                        castsOf(part, casts, "/kind/combine", s.ins().get(p));
                    }
                }
                casts.clear();
                yield v;
            }
            case StageKind.Compute c -> compute(c.op(), ins, casts);
            case StageKind.Scalar sc -> {
                double v = 0;
                for (Expr e : sc.body().results()) {
                    v = Math.max(v, ValueBounds.of(e, ins, params, new ArrayList<>()));
                }
                yield v;
            }
        };
        for (int k = 0; k < s.outs().size(); k++) {
            String b = s.outs().get(k);
            Val v = out.isEmpty() ? null : out.get(Math.min(k, out.size() - 1));
            if (v instanceof Val.Partial p) {
                castsOf(p, casts, "/kind/op", b);
                DType d = dtype(b);
                if (d != null && ValueBounds.exceeds(value, d)) {
                    narrows(p, d, value, "/outs/" + k, b, "its buffer's dtype " + d.jsonName());
                }
            }
            DType d = dtype(b);
            buffers.put(b, d == null ? value : ValueBounds.rounded(value, d));
        }
    }

    private double compute(ComputeOp op, List<Double> ins, List<ValueBounds.Cast> casts) {
        double first = ins.isEmpty() ? ValueBounds.UNBOUNDED : ins.getFirst();
        return switch (op) {
            case ComputeOp.Generic g -> ValueBounds.of(g.expr(), ins, params, casts);
            case ComputeOp.MatMul m -> {
                long[] a = st.index.buffer(st.stage.ins().getFirst()) == null ? null : st.dims(st.stage.ins().getFirst());
                double k = a == null || a.length != 2 ? ValueBounds.UNBOUNDED : a[m.transposeA() ? 0 : 1];
                double v = ValueBounds.mul(k, ValueBounds.mul(first, ins.size() > 1 ? ins.get(1) : ValueBounds.UNBOUNDED));
                if (m.spill() != null) {
                    v += bound(m.spill());
                }
                if (m.bias() != null) {
                    v += bound(m.bias());
                }
                if (m.spill() != null) {
                    DType d = dtype(m.spill());
                    buffers.put(m.spill(), d == null ? v : ValueBounds.rounded(v, d));
                }
                yield v;
            }
            case ComputeOp.Reduce r -> {
                long[] in = st.stage.ins().isEmpty() ? null : st.dims(st.stage.ins().getFirst());
                double n = in == null || r.axis() >= in.length ? ValueBounds.UNBOUNDED : in[r.axis()];
                yield switch (r.fn()) {
                    case SUM -> ValueBounds.mul(n, first);
                    case MAX, MIN -> first;
                    case ARGMAX -> n;
                };
            }
            case ComputeOp.Reshape r -> first;
            case ComputeOp.Transpose t -> first;
            case ComputeOp.Slice sl -> first;
            case ComputeOp.Concat c -> ins.stream().mapToDouble(Double::doubleValue).max().orElse(0);
        };
    }

    private void store(StageKind.Store w, double in) {
        TensorDecl t = st.index.tensor(w.tensor());
        if (t == null) {
            return;
        }
        String buffer = st.stage.ins().isEmpty() ? null : st.stage.ins().getFirst();
        if (st.value(buffer) instanceof Val.Partial p && ValueBounds.exceeds(in, t.dtype())) {
            narrows(p, t.dtype(), in, "/ins/0", buffer, "tensor '" + t.name() + "' of dtype " + t.dtype().jsonName());
        }
        tensors.merge(t.name(), ValueBounds.rounded(in, t.dtype()), Math::max);
    }

    private void castsOf(Val.Partial p, List<ValueBounds.Cast> casts, String field, String buffer) {
        for (ValueBounds.Cast c : casts) {
            if (ValueBounds.exceeds(c.before(), c.dtype())) {
                narrows(p, c.dtype(), c.before(), field, buffer, "a cast to " + c.dtype().jsonName());
            }
        }
    }

    /** A partial {@code p} of bound {@code bound} rounded to {@code d}: recorded, and reported when the parent does not round it so. */
    private void narrows(Val.Partial p, DType d, double bound, String field, String buffer, String where) {
        if (d == DType.F32 || !d.isFloating() || ShardState.complete(p)) {
            return; // the arithmetic is f32: rounding to it is the computation itself, and a complete partial is the full value
        }
        if (p.pool() != ReducePool.SUM) {
            return; // rounding is nondecreasing (saturation and overflow included): the max (min) of rounded partials is the rounded max (min)
        }
        String key = p.familyKey() + "|" + d.name();
        points.add(new Point(key, st.stageIndex));
        if (parent == null || parent.contains(key)) {
            return;
        }
        String limit = ValueBounds.saturates(d) ? "saturates at " + fmt(ValueBounds.maxFinite(d)) : "overflows to infinity past " + fmt(ValueBounds.maxFinite(d));
        st.report(Code.PARTIAL_RANGE_NARROWED, field, buffer, "Buffer '" + buffer + "' holds a " + p.describe() + ", which its inputs' dtypes bound only by "
                + (bound == ValueBounds.UNBOUNDED ? "no finite value" : "|v| <= " + fmt(bound)) + ", and " + where + " rounds it to " + d.jsonName()
                + ", which " + limit + ": the unsplit parent never rounds this partial to " + d.jsonName()
                + ", and the sum of the chips' rounded partials is not the rounded sum where a partial leaves that range.", p.origin(),
                "rounds the " + p.describe() + " to " + d.jsonName());
    }

    private static String fmt(double v) {
        return v == Math.rint(v) && v < 1e15 ? Long.toString((long) v) : String.format(Locale.ROOT, "%.4g", v);
    }

    private double bound(String buffer) {
        Double b = buffers.get(buffer);
        if (b != null) {
            return b;
        }
        DType d = dtype(buffer);
        return d == null ? ValueBounds.UNBOUNDED : ValueBounds.maxFinite(d);
    }

    private DType dtype(String buffer) {
        BufferDecl d = buffer == null ? null : st.index.buffer(buffer);
        return d == null ? null : d.dtype();
    }
}
