package org.stagecheck.conformance;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;

/**
 * What the suite exercises, computed by walking the cases' programs with exhaustive switches over
 * the IR, against what the IR offers: every stage kind, compute op, access pattern (for Load and
 * for Store), offset term, expression node, function, reduce function, all-reduce pool, dtype (as
 * tensor, buffer and cast dtype), and the options a kind carries (MatMul transposes, bias, spill;
 * multicast; streamed block counts; sub-blocks; broadcasting). A new kind or op fails to
 * compile here; a new enum constant shows up in {@link #required()} and so as missing until a case
 * covers it.
 *
 * <p>Features are strings such as {@code kind/Load}, {@code fn/exp}, {@code dtype/cast/e4m3}.
 */
public final class Coverage {
    private Coverage() {
    }

    /** Every feature the suite must cover. */
    public static Set<String> required() {
        Set<String> out = new TreeSet<>();
        for (Class<?> c : StageKind.class.getPermittedSubclasses()) {
            out.add("kind/" + c.getSimpleName());
        }
        for (Class<?> c : ComputeOp.class.getPermittedSubclasses()) {
            out.add("op/" + c.getSimpleName());
        }
        for (Class<?> c : AccessPattern.class.getPermittedSubclasses()) {
            out.add("pattern/load/" + c.getSimpleName());
            out.add("pattern/store/" + c.getSimpleName());
        }
        out.add("offset/constant");
        for (Class<?> c : Offset.Term.class.getPermittedSubclasses()) {
            out.add("offset/" + c.getSimpleName());
        }
        for (Class<?> c : Expr.class.getPermittedSubclasses()) {
            out.add("expr/" + c.getSimpleName());
        }
        Arrays.stream(Fn.values()).forEach(f -> out.add("fn/" + f.spelling()));
        Arrays.stream(ReduceFn.values()).forEach(f -> out.add("reduce/" + f.jsonName()));
        Arrays.stream(ReducePool.values()).forEach(p -> out.add("pool/" + p.jsonName()));
        for (DType d : DType.values()) {
            out.add("dtype/tensor/" + d.jsonName());
            out.add("dtype/buffer/" + d.jsonName());
            out.add("dtype/cast/" + d.jsonName());
        }
        out.addAll(List.of("matmul/transposeA", "matmul/transposeB", "matmul/bias", "matmul/spill",
                "load/multicast", "load/streamed-blocks", "store/sub-blocks", "store/streamed-blocks", "generic/broadcast"));
        return out;
    }

    /** The features the cases exercise. */
    public static Set<String> of(List<ConformanceCase> cases) {
        Set<String> out = new TreeSet<>();
        for (ConformanceCase c : cases) {
            program(c.program(), out);
        }
        return out;
    }

    /** The features {@link #required()} names that {@code cases} do not exercise; empty when complete. */
    public static Set<String> missing(List<ConformanceCase> cases) {
        Set<String> out = required();
        out.removeAll(of(cases));
        return out;
    }

    private static void program(Program p, Set<String> out) {
        for (TensorDecl t : p.tensors()) {
            out.add("dtype/tensor/" + t.dtype().jsonName());
        }
        for (BufferDecl b : p.buffers()) {
            out.add("dtype/buffer/" + b.dtype().jsonName());
        }
        Map<String, BufferDecl> buffers = p.buffersByName();
        for (Stage s : p.stages()) {
            stage(s, buffers, out);
        }
    }

    private static void stage(Stage s, Map<String, BufferDecl> buffers, Set<String> out) {
        switch (s.kind()) {
            case StageKind.Load l -> {
                out.add("kind/Load");
                pattern("load", l.pattern(), out);
                if (l.multicast() != null) {
                    out.add("load/multicast");
                }
                if (l.numBlocks() > 1) {
                    out.add("load/streamed-blocks");
                }
            }
            case StageKind.Store st -> {
                out.add("kind/Store");
                pattern("store", st.pattern(), out);
                if ((long) st.subRows() * st.subCols() > 1) {
                    out.add("store/sub-blocks");
                }
                if (st.pattern() instanceof AccessPattern.Streamed sp && !s.ins().isEmpty() && buffers.containsKey(s.ins().getFirst())
                        && buffers.get(s.ins().getFirst()).shape().dim(sp.axis()) > sp.block().dim(sp.axis())) {
                    out.add("store/streamed-blocks");
                }
            }
            case StageKind.Recv r -> out.add("kind/Recv");
            case StageKind.AllReduce a -> {
                out.add("kind/AllReduce");
                out.add("pool/" + a.pool().jsonName());
                expr(a.combine().expr(), out);
            }
            case StageKind.Compute c -> {
                out.add("kind/Compute");
                op(c.op(), s, buffers, out);
            }
            case StageKind.Scalar sc -> {
                out.add("kind/Scalar");
                sc.body().results().forEach(e -> expr(e, out));
            }
        }
    }

    private static void pattern(String side, AccessPattern p, Set<String> out) {
        String name = switch (p) {
            case AccessPattern.Block b -> "Block";
            case AccessPattern.Streamed st -> "Streamed";
            case AccessPattern.Indirect i -> "Indirect";
        };
        out.add("pattern/" + side + "/" + name);
        for (Offset o : p.originOffsets()) {
            if (o.constant() != 0) {
                out.add("offset/constant");
            }
            for (Offset.Term t : o.terms()) {
                out.add(switch (t) {
                    case Offset.Term.OfParam op -> "offset/OfParam";
                    case Offset.Term.OfBuffer ob -> "offset/OfBuffer";
                });
            }
        }
    }

    private static void op(ComputeOp op, Stage s, Map<String, BufferDecl> buffers, Set<String> out) {
        switch (op) {
            case ComputeOp.Generic g -> {
                out.add("op/Generic");
                expr(g.expr(), out);
                BufferDecl o = s.outs().isEmpty() ? null : buffers.get(s.outs().getFirst());
                for (String in : s.ins()) {
                    BufferDecl b = buffers.get(in);
                    if (o != null && b != null && !b.shape().equals(o.shape())) {
                        out.add("generic/broadcast");
                    }
                }
            }
            case ComputeOp.MatMul m -> {
                out.add("op/MatMul");
                if (m.transposeA()) {
                    out.add("matmul/transposeA");
                }
                if (m.transposeB()) {
                    out.add("matmul/transposeB");
                }
                if (m.bias() != null) {
                    out.add("matmul/bias");
                }
                if (m.spill() != null) {
                    out.add("matmul/spill");
                }
            }
            case ComputeOp.Reduce r -> {
                out.add("op/Reduce");
                out.add("reduce/" + r.fn().jsonName());
            }
            case ComputeOp.Reshape r -> out.add("op/Reshape");
            case ComputeOp.Transpose t -> out.add("op/Transpose");
            case ComputeOp.Slice sl -> out.add("op/Slice");
            case ComputeOp.Concat c -> out.add("op/Concat");
        }
    }

    private static void expr(Expr e, Set<String> out) {
        switch (e) {
            case Expr.In in -> out.add("expr/In");
            case Expr.FloatConst c -> out.add("expr/FloatConst");
            case Expr.IntConst c -> out.add("expr/IntConst");
            case Expr.ParamRef p -> out.add("expr/ParamRef");
            case Expr.Index ix -> out.add("expr/Index");
            case Expr.Apply a -> {
                out.add("expr/Apply");
                out.add("fn/" + a.fn().spelling());
                a.args().forEach(x -> expr(x, out));
            }
            case Expr.Cast c -> {
                out.add("expr/Cast");
                out.add("dtype/cast/" + c.dtype().jsonName());
                expr(c.arg(), out);
            }
        }
    }
}
