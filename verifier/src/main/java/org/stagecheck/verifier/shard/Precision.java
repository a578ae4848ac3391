package org.stagecheck.verifier.shard;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.InternalRef;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.verifier.Code;
import org.stagecheck.verifier.Findings;

/**
 * The precision a split keeps (docs/verifier.md, "The unsplit parent"): terms do not model
 * rounding, so partials summed in bf16 where the unsplit program sums in f32 give the same term.
 * This pass follows, for every buffer and tensor, the set of float formats narrower than f32
 * that any value it was computed from passed through: a buffer's dtype, a cast inside an
 * expression, a tensor stored to. A format is not ranked by its significand bits alone: f16
 * keeps more bits than bf16 but overflows past 65504, e4m3 keeps more bits than e5m2 but
 * saturates at 448. A format {@code g} covers {@code f} when it loses at least what {@code f}
 * loses in every respect: no more significand bits, no larger finite range, no finer smallest
 * subnormal. An output of the split that passed through a format that no format of the
 * parent's output of that logical name covers is {@code PRECISION_NARROWED}; a split that keeps
 * f32 where the parent rounds is not a finding.
 *
 * <p>One pass over the stages, linear in program size; integer values count as exact.
 */
final class Precision {
    static final int EXACT = Integer.MAX_VALUE;

    private Precision() {}

    /** Significand bits of a dtype (implicit bit included); integers are exact. */
    static int bits(DType d) {
        return switch (d) {
            case F32 -> 24;
            case F16 -> 11;
            case BF16 -> 8;
            case E4M3 -> 4;
            case E5M2 -> 3;
            case I32 -> EXACT;
        };
    }

    /** The smallest positive (subnormal) value of a float format; 1 for integers. */
    static double smallest(DType d) {
        return switch (d) {
            case F32 -> Math.scalb(1.0, -149);
            case F16 -> Math.scalb(1.0, -24);
            case BF16 -> Math.scalb(1.0, -133);
            case E4M3 -> Math.scalb(1.0, -9);
            case E5M2 -> Math.scalb(1.0, -16);
            case I32 -> 1;
        };
    }

    /**
     * Whether rounding to {@code g} loses at least what rounding to {@code f} loses: fewer or as
     * many bits, no wider range, no finer subnormals. For float formats this is every value of
     * {@code g} being one of {@code f} ({@link SameValues} reads it so).
     */
    static boolean covers(DType g, DType f) {
        return bits(g) <= bits(f) && ValueBounds.maxFinite(g) <= ValueBounds.maxFinite(f) && smallest(g) >= smallest(f);
    }

    /** The bit of a float format narrower than f32 in a set of formats; 0 for f32 (the arithmetic's own format) and integers. */
    static int mask(DType d) {
        return d.isFloating() && d != DType.F32 ? 1 << d.ordinal() : 0;
    }

    /** The formats of {@code split} that no format of {@code parent} covers (bit sets of {@link #mask}). */
    static int uncovered(int split, int parent) {
        int out = 0;
        for (DType f : DType.values()) {
            if ((split & mask(f)) == 0) {
                continue;
            }
            boolean covered = false;
            for (DType g : DType.values()) {
                covered |= (parent & mask(g)) != 0 && covers(g, f);
            }
            if (!covered) {
                out |= mask(f);
            }
        }
        return out;
    }

    /**
     * Reports every output or state tensor of {@code split} (named like a tensor of
     * {@code parent} or declared a window of it) whose value passed through a float format that
     * no format the parent's value passed through covers.
     */
    static void compare(Program parent, Program split, ShardDecls decls, Findings findings) {
        Map<String, Integer> mine = ofTensors(split);
        Map<String, Integer> theirs = ofTensors(parent);
        for (TensorDecl t : split.tensors()) {
            if (!t.role().isResult()) {
                continue;
            }
            ShardDecl d = decls.of(t.name());
            String logical = d != null ? d.logical() : t.name();
            Integer want = theirs.get(logical);
            Integer got = mine.get(t.name());
            int lost = want == null || got == null ? 0 : uncovered(got, want);
            if (lost != 0) {
                findings.atField(Code.PRECISION_NARROWED, "/tensors", null, "Tensor '" + t.name() + "' (chip " + t.chip()
                        + ") stands for the unsplit program's tensor '" + logical + "', whose value passes through " + names(want)
                        + ", but the split's passes through " + names(lost)
                        + " (a buffer, cast or tensor of that dtype on the way), which none of those formats covers (fewer or as many significand"
                        + " bits, no wider finite range, no finer subnormals): it is computed less precisely, or over a narrower range, than"
                        + " the unsplit program computes it.");
            }
        }
    }

    /** The formats of a set, e.g. {@code "f16 (11 significand bits, largest 65504)"}; "no format narrower than f32" for none. */
    private static String names(int formats) {
        java.util.List<String> out = new java.util.ArrayList<>();
        for (DType d : DType.values()) {
            if ((formats & mask(d)) != 0) {
                double max = ValueBounds.maxFinite(d);
                out.add(d.jsonName() + " (" + bits(d) + " significand bits, largest " + (max < 1e6 ? Long.toString((long) max) : String.format(java.util.Locale.ROOT, "%.3g", max)) + ")");
            }
        }
        return out.isEmpty() ? "no format narrower than f32" : String.join(" and ", out);
    }

    /** The formats narrower than f32 ({@link #mask} bits) each output or state tensor's final value passed through, by tensor name. */
    static Map<String, Integer> ofTensors(Program p) {
        Map<String, Integer> buffers = new HashMap<>();
        Map<String, Integer> tensors = new HashMap<>();
        Map<String, Integer> inFlight = new HashMap<>();
        Map<String, DType> bufferType = new HashMap<>();
        p.buffers().forEach(b -> bufferType.put(b.name(), b.dtype()));
        for (TensorDecl t : p.tensors()) {
            tensors.put(t.name(), mask(t.dtype()));
        }
        for (Stage s : p.stages()) {
            int in = 0;
            for (String b : s.ins()) {
                in |= buffers.getOrDefault(b, own(bufferType, b));
            }
            for (InternalRef r : s.kind().internalRefs()) {
                in |= buffers.getOrDefault(r.buffer(), own(bufferType, r.buffer()));
            }
            int value = switch (s.kind()) {
                case StageKind.Load l -> {
                    int v = in | tensors.getOrDefault(l.tensor(), 0);
                    if (l.multicast() != null) {
                        inFlight.put(l.multicast(), v);
                    }
                    yield v;
                }
                case StageKind.Store st -> {
                    tensors.merge(st.tensor(), in, (a, b) -> a | b);
                    yield in;
                }
                case StageKind.Recv r -> inFlight.getOrDefault(r.group(), 0);
                case StageKind.AllReduce a -> in | casts(a.combine().expr());
                case StageKind.Compute c -> switch (c.op()) {
                    case ComputeOp.Generic g -> in | casts(g.expr());
                    case ComputeOp.MatMul m -> in;
                    case ComputeOp.Reduce r -> in;
                    case ComputeOp.Reshape r -> in;
                    case ComputeOp.Transpose t -> in;
                    case ComputeOp.Slice sl -> in;
                    case ComputeOp.Concat cc -> in;
                };
                case StageKind.Scalar sc -> {
                    int v = in;
                    for (Expr e : sc.body().results()) {
                        v |= casts(e);
                    }
                    yield v;
                }
            };
            for (String b : s.outs()) {
                buffers.put(b, value | own(bufferType, b));
            }
        }
        return tensors;
    }

    private static int own(Map<String, DType> types, String buffer) {
        DType d = types.get(buffer);
        return d == null ? 0 : mask(d);
    }

    /** The float formats narrower than f32 an expression casts to (iteratively: expressions may nest deeply). */
    private static int casts(Expr root) {
        int formats = 0;
        Deque<Expr> todo = new ArrayDeque<>();
        todo.push(root);
        while (!todo.isEmpty()) {
            switch (todo.pop()) {
                case Expr.Cast c -> {
                    formats |= mask(c.dtype());
                    todo.push(c.arg());
                }
                case Expr.Apply a -> a.args().forEach(todo::push);
                case Expr.In i -> { }
                case Expr.FloatConst f -> { }
                case Expr.IntConst i -> { }
                case Expr.ParamRef r -> { }
                case Expr.Index x -> { }
            }
        }
        return formats;
    }
}
