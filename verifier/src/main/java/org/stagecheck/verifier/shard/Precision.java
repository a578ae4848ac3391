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
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.verifier.Code;
import org.stagecheck.verifier.Findings;

/**
 * The precision a split keeps (docs/verifier.md, "The unsplit parent"): terms do not model
 * rounding, so partials summed in bf16 where the unsplit program sums in f32 give the same term.
 * This pass follows, for every buffer and tensor, the narrowest float format (mantissa bits) that
 * any value it was computed from passed through: a buffer's dtype, a cast inside an expression,
 * a tensor stored to. An output of the split that passed through a narrower format than the
 * parent's output of that logical name is {@code PRECISION_NARROWED}; a wider one (a split that
 * keeps f32 where the parent rounds) is not a finding.
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

    /**
     * Reports every output or state tensor of {@code split} (named like a tensor of
     * {@code parent} or declared a window of it) whose value passed through a narrower float
     * format than the parent's.
     */
    static void compare(Program parent, Program split, ShardDecls decls, Findings findings) {
        Map<String, Integer> mine = ofTensors(split);
        Map<String, Integer> theirs = ofTensors(parent);
        for (TensorDecl t : split.tensors()) {
            if (t.role() != TensorRole.OUTPUT && t.role() != TensorRole.STATE) {
                continue;
            }
            ShardDecl d = decls.of(t.name());
            String logical = d != null ? d.logical() : t.name();
            Integer want = theirs.get(logical);
            Integer got = mine.get(t.name());
            if (want != null && got != null && got < want) {
                findings.atField(Code.PRECISION_NARROWED, "/tensors", null, "Tensor '" + t.name() + "' (chip " + t.chip()
                        + ") stands for the unsplit program's tensor '" + logical + "', whose value never passes through a float format narrower than "
                        + name(want) + ", but the split's passes through " + name(got)
                        + " (a buffer, cast or tensor of that dtype on the way): it is computed less precisely than the unsplit program computes it.");
            }
        }
    }

    private static String name(int bits) {
        for (DType d : DType.values()) {
            if (bits(d) == bits) {
                return d.jsonName() + " (" + bits + " significand bits)";
            }
        }
        return bits + " significand bits";
    }

    /** The narrowest format each output or state tensor's final value passed through, by tensor name. */
    static Map<String, Integer> ofTensors(Program p) {
        Map<String, Integer> buffers = new HashMap<>();
        Map<String, Integer> tensors = new HashMap<>();
        Map<String, Integer> inFlight = new HashMap<>();
        Map<String, DType> bufferType = new HashMap<>();
        p.buffers().forEach(b -> bufferType.put(b.name(), b.dtype()));
        for (TensorDecl t : p.tensors()) {
            tensors.put(t.name(), bits(t.dtype()));
        }
        for (Stage s : p.stages()) {
            int in = EXACT;
            for (String b : s.ins()) {
                in = Math.min(in, buffers.getOrDefault(b, own(bufferType, b)));
            }
            for (InternalRef r : s.kind().internalRefs()) {
                in = Math.min(in, buffers.getOrDefault(r.buffer(), own(bufferType, r.buffer())));
            }
            int value = switch (s.kind()) {
                case StageKind.Load l -> {
                    int v = Math.min(in, tensors.getOrDefault(l.tensor(), EXACT));
                    if (l.multicast() != null) {
                        inFlight.put(l.multicast(), v);
                    }
                    yield v;
                }
                case StageKind.Store st -> {
                    tensors.merge(st.tensor(), in, Math::min);
                    yield in;
                }
                case StageKind.Recv r -> inFlight.getOrDefault(r.group(), EXACT);
                case StageKind.AllReduce a -> Math.min(in, casts(a.combine().expr()));
                case StageKind.Compute c -> switch (c.op()) {
                    case ComputeOp.Generic g -> Math.min(in, casts(g.expr()));
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
                        v = Math.min(v, casts(e));
                    }
                    yield v;
                }
            };
            for (String b : s.outs()) {
                buffers.put(b, Math.min(value, own(bufferType, b)));
            }
        }
        return tensors;
    }

    private static int own(Map<String, DType> types, String buffer) {
        DType d = types.get(buffer);
        return d == null ? EXACT : bits(d);
    }

    /** The narrowest float format an expression casts to (iteratively: expressions may nest deeply). */
    private static int casts(Expr root) {
        int narrowest = EXACT;
        Deque<Expr> todo = new ArrayDeque<>();
        todo.push(root);
        while (!todo.isEmpty()) {
            switch (todo.pop()) {
                case Expr.Cast c -> {
                    if (c.dtype().isFloating()) {
                        narrowest = Math.min(narrowest, bits(c.dtype()));
                    }
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
        return narrowest;
    }
}
