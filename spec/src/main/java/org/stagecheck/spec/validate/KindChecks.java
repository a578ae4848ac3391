package org.stagecheck.spec.validate;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Group;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.rules.MoveRules;
import org.stagecheck.spec.rules.Rule;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.spec.ir.ValueType;

/** The per-kind rules of structural validation, one method per stage kind. */
final class KindChecks {
    private final Validator.Declarations d;
    private final Findings f;
    private final OpChecks ops;
    /** The types of the program's expressions (generic ops, all-reduce combines, scalar bodies), each typed once. */
    private final ExprTypes exprTypes;
    /** Shape and dtype most recently multicast to each group, to check the Recvs against. */
    private final Map<String, BufferDecl> lastMulticast = new HashMap<>();

    KindChecks(Validator.Declarations d, Findings f) {
        this.d = d;
        this.f = f;
        this.exprTypes = new ExprTypes(d.params().keySet());
        this.ops = new OpChecks(d, f, exprTypes);
    }

    void check(int i, Stage s) {
        List<BufferDecl> ins = ports(i, s, s.ins(), "ins", !(s.kind() instanceof StageKind.AllReduce));
        List<BufferDecl> outs = ports(i, s, s.outs(), "outs", !(s.kind() instanceof StageKind.AllReduce));
        switch (s.kind()) {
            case StageKind.Load l -> load(i, s, l, ins, outs);
            case StageKind.Store st -> store(i, s, st, ins, outs);
            case StageKind.Recv r -> recv(i, s, r, ins, outs);
            case StageKind.AllReduce a -> allReduce(i, s, a, ins, outs);
            case StageKind.Compute c -> ops.check(i, s, c.op(), ins, outs);
            case StageKind.Scalar sc -> scalar(i, s, sc, ins, outs);
        }
    }

    /** The declarations of the port buffers, null where a name is dangling (reported here). */
    private List<BufferDecl> ports(int i, Stage s, List<String> names, String field, boolean sameSite) {
        List<BufferDecl> out = new ArrayList<>(names.size());
        for (int k = 0; k < names.size(); k++) {
            BufferDecl b = d.buffers().get(names.get(k));
            if (b == null) {
                f.stage(Rule.UNKNOWN_BUFFER, i, s, field + "/" + k, names.get(k), "names buffer '" + names.get(k) + "', which is not declared");
            } else if (sameSite && !b.site().equals(s.site())) {
                f.stage(Rule.BUFFER_WRONG_SITE, i, s, field + "/" + k, b.name(), "buffer '" + b.name() + "' lives on core " + b.site() + " but the stage runs on " + s.site());
            }
            out.add(b);
        }
        return out;
    }

    static boolean arity(Findings f, int i, Stage s, List<BufferDecl> ins, int nIns, List<BufferDecl> outs, int nOuts, String what) {
        boolean ok = true;
        if (nIns >= 0 && ins.size() != nIns) {
            f.stage(Rule.PORT_COUNT, i, s, "ins", null, what + " takes " + nIns + " input(s), not " + ins.size());
            ok = false;
        }
        if (nOuts >= 0 && outs.size() != nOuts) {
            f.stage(Rule.PORT_COUNT, i, s, "outs", null, what + " writes " + nOuts + " output(s), not " + outs.size());
            ok = false;
        }
        return ok && !ins.contains(null) && !outs.contains(null);
    }

    private void load(int i, Stage s, StageKind.Load l, List<BufferDecl> ins, List<BufferDecl> outs) {
        boolean portsOk = arity(f, i, s, ins, 0, outs, 1, "a Load");
        TensorDecl t = tensor(i, s, l.tensor());
        Integer indexLength = pattern(i, s, l.pattern(), t, "kind/pattern");
        if (l.numBlocks() != 1 && !(l.pattern() instanceof AccessPattern.Streamed)) {
            f.stage(Rule.NUM_BLOCKS, i, s, "kind/numBlocks", null, "only a streamed pattern reads more than one block; this one reads " + l.numBlocks());
        }
        BufferDecl out = portsOk ? outs.get(0) : null;
        if (l.multicast() != null) {
            Group g = d.groups().get(l.multicast());
            if (g == null) {
                f.stage(Rule.UNKNOWN_GROUP, i, s, "kind/multicast", null, "multicasts to group '" + l.multicast() + "', which is not declared");
            } else if (!g.sender().equals(s.site())) {
                f.stage(Rule.MULTICAST_SENDER, i, s, "kind/multicast", null, "multicasts to group '" + g.name() + "' whose sender is " + g.sender() + ", but the Load runs on " + s.site());
            } else if (out != null) {
                lastMulticast.put(g.name(), out);
            }
        }
        if (t == null || out == null || indexLength == null) {
            return;
        }
        f.stage(i, s, MoveRules.load(t, l.numBlocks(), PatternShapes.bufferShape(l.pattern(), l.numBlocks(), indexLength), out));
        if (l.pattern() instanceof AccessPattern.Streamed st && st.axis() >= 0 && st.axis() < st.block().rank()
                && t.shape().rank() == st.block().rank() && st.originOffsets().size() == st.block().rank()) {
            fits(i, s, t, l.pattern(), "kind/pattern", st.axis(), saturatingMultiply(l.numBlocks() - 1, st.stride()));
        }
    }

    private void store(int i, Stage s, StageKind.Store st, List<BufferDecl> ins, List<BufferDecl> outs) {
        boolean portsOk = arity(f, i, s, ins, 1, outs, 0, "a Store");
        TensorDecl t = tensor(i, s, st.tensor());
        Integer indexLength = pattern(i, s, st.pattern(), t, "kind/pattern");
        if (t != null && (t.role() == TensorRole.INPUT || t.role() == TensorRole.WEIGHT)) {
            f.stage(Rule.STORE_READ_ONLY, i, s, "kind/tensor", null, "stores into " + t.role().jsonName() + " tensor '" + t.name() + "', which a program only reads");
        }
        Shape block = st.pattern().block();
        int rows = block.rank() >= 2 ? block.dim(block.rank() - 2) : 1;
        int cols = block.rank() >= 1 ? block.dim(block.rank() - 1) : 1;
        if (rows % st.subRows() != 0 || cols % st.subCols() != 0) {
            f.stage(Rule.SUBBLOCK_TILING, i, s, "kind/subBlocks", null, "sub-blocks of " + st.subRows() + "x" + st.subCols() + " do not tile the " + rows + "x" + cols + " block");
        }
        if (!portsOk || t == null || indexLength == null) {
            return;
        }
        BufferDecl in = ins.get(0);
        int blocks = 1;
        if (st.pattern() instanceof AccessPattern.Streamed sp && sp.axis() >= 0 && sp.axis() < sp.block().rank()
                && in.shape().rank() == sp.block().rank()) {
            int per = sp.block().dim(sp.axis());
            int have = in.shape().dim(sp.axis());
            if (per == 0 || have % per != 0) {
                f.stage(Rule.STORE_SHAPE, i, s, "ins/0", in.name(), "buffer '" + in.name() + "' of shape " + in.shape() + " is not a whole number of " + sp.block() + " blocks along axis " + sp.axis());
                return;
            }
            blocks = have / per;
            fits(i, s, t, st.pattern(), "kind/pattern", sp.axis(), saturatingMultiply(blocks - 1, sp.stride()));
        }
        f.stage(i, s, MoveRules.store(in, PatternShapes.bufferShape(st.pattern(), blocks, indexLength), t));
    }

    private void recv(int i, Stage s, StageKind.Recv r, List<BufferDecl> ins, List<BufferDecl> outs) {
        boolean portsOk = arity(f, i, s, ins, 0, outs, 1, "a Recv");
        Group g = d.groups().get(r.group());
        if (g == null) {
            f.stage(Rule.UNKNOWN_GROUP, i, s, "kind/group", null, "receives from group '" + r.group() + "', which is not declared");
            return;
        }
        if (!g.receivers().contains(s.site())) {
            f.stage(Rule.RECV_NOT_RECEIVER, i, s, "site", null, "core " + s.site() + " is not a receiver of group '" + g.name() + "'");
        }
        BufferDecl sent = lastMulticast.get(g.name());
        if (portsOk && sent != null) {
            f.stage(i, s, MoveRules.recv(g.name(), sent.dtype(), sent.shape(), outs.get(0)));
        }
    }

    private void allReduce(int i, Stage s, StageKind.AllReduce a, List<BufferDecl> ins, List<BufferDecl> outs) {
        if (ins.isEmpty() || outs.isEmpty()) {
            f.stage(Rule.PORT_COUNT, i, s, ins.isEmpty() ? "ins" : "outs", null, "an AllReduce takes at least one input and writes at least one output");
        }
        BufferDecl first = ins.stream().filter(b -> b != null).findFirst().orElse(null);
        List<BufferDecl> all = new ArrayList<>(ins);
        all.addAll(outs);
        for (int k = 0; k < all.size(); k++) {
            BufferDecl b = all.get(k);
            String field = k < ins.size() ? "ins/" + k : "outs/" + (k - ins.size());
            if (b != null && first != null && (!b.shape().equals(first.shape()) || b.dtype() != first.dtype())) {
                f.stage(Rule.ALLREDUCE_SHAPE, i, s, field, b.name(), "buffer '" + b.name() + "' is " + b.dtype() + b.shape() + " but '" + first.name() + "' is " + first.dtype() + first.shape() + "; all partials and outputs agree");
            }
        }
        Map<Integer, BufferDecl> byChip = new HashMap<>();
        for (int k = 0; k < ins.size(); k++) {
            BufferDecl b = ins.get(k);
            if (b == null) {
                continue;
            }
            BufferDecl earlier = byChip.putIfAbsent(b.site().chip(), b);
            if (earlier != null) {
                // the members are derived from the partials' chips (brief, "Stages"): one chip, one partial
                f.stage(Rule.ALLREDUCE_MEMBERS, i, s, "ins/" + k, b.name(), "partial '" + b.name() + "' is on chip " + b.site().chip()
                        + ", which already holds partial '" + earlier.name() + "'; the partials of an all-reduce are on distinct chips");
            }
        }
        if (first == null) {
            return;
        }
        ValueType[] types = ins.stream().map(b -> b == null ? ValueType.of(first.dtype()) : ValueType.of(b.dtype())).toArray(ValueType[]::new);
        try {
            ValueType t = exprTypes.type(a.combine().expr(), types, first.shape().rank());
            if (t != ValueType.of(first.dtype())) {
                f.stage(Rule.EXPR_TYPE, i, s, "kind/combine", null, "the combine yields " + t + " but the partials are " + first.dtype());
            }
        } catch (ExprTyper.TypeError e) {
            f.stage(Rule.EXPR_TYPE, i, s, "kind/combine", null, e.getMessage());
        }
    }

    private void scalar(int i, Stage s, StageKind.Scalar sc, List<BufferDecl> ins, List<BufferDecl> outs) {
        List<Expr> results = sc.body().results();
        if (results.size() != outs.size()) {
            f.stage(Rule.PORT_COUNT, i, s, "outs", null, "the scalar body computes " + results.size() + " value(s) for " + outs.size() + " output(s)");
        }
        ValueType[] types = new ValueType[ins.size()];
        for (int k = 0; k < ins.size(); k++) {
            BufferDecl b = ins.get(k);
            types[k] = b == null ? ValueType.INT : ValueType.of(b.dtype());
            if (b != null && b.shape().elementCount() != 1) {
                f.stage(Rule.SCALAR_SHAPE, i, s, "ins/" + k, b.name(), "a scalar stage reads one-element buffers; '" + b.name() + "' has shape " + b.shape());
            }
        }
        for (int k = 0; k < outs.size(); k++) {
            BufferDecl b = outs.get(k);
            if (b != null && b.shape().elementCount() != 1) {
                f.stage(Rule.SCALAR_SHAPE, i, s, "outs/" + k, b.name(), "a scalar stage writes one-element buffers; '" + b.name() + "' has shape " + b.shape());
            }
        }
        for (int k = 0; k < results.size(); k++) {
            try {
                ValueType t = exprTypes.type(results.get(k), types, -1);
                if (k < outs.size() && outs.get(k) != null && t != ValueType.of(outs.get(k).dtype())) {
                    f.stage(Rule.EXPR_TYPE, i, s, "kind/body/" + k, outs.get(k).name(), "computes a " + t + " for " + outs.get(k).dtype() + " buffer '" + outs.get(k).name() + "'");
                }
            } catch (ExprTyper.TypeError e) {
                f.stage(Rule.EXPR_TYPE, i, s, "kind/body/" + k, null, e.getMessage());
            }
        }
    }

    private TensorDecl tensor(int i, Stage s, String name) {
        TensorDecl t = d.tensors().get(name);
        if (t == null) {
            f.stage(Rule.UNKNOWN_TENSOR, i, s, "kind/tensor", null, "names tensor '" + name + "', which is not declared");
            return null;
        }
        if (t.chip() != s.site().chip()) {
            f.stage(Rule.TENSOR_WRONG_CHIP, i, s, "kind/tensor", null, "tensor '" + name + "' is in chip " + t.chip() + "'s DRAM but the stage runs on chip " + s.site().chip());
        }
        return t;
    }

    /**
     * Checks a pattern against its tensor: ranks, offsets' names, the block inside the tensor for
     * every parameter value. Returns the index buffer's length (0 for direct patterns), or null when
     * the pattern is too malformed to derive a buffer shape.
     */
    private Integer pattern(int i, Stage s, AccessPattern p, TensorDecl t, String field) {
        boolean ok = true;
        int rank = PatternShapes.tensorRank(p);
        List<Offset> origin = p.originOffsets();
        int originAxes = p instanceof AccessPattern.Indirect ? rank - 1 : rank;
        if (origin.size() != originAxes) {
            f.stage(Rule.PATTERN_RANK, i, s, field + "/origin", null, "the origin has " + origin.size() + " offset(s) for a block of " + originAxes + " axes");
            ok = false;
        }
        if (t != null && t.shape().rank() != rank) {
            f.stage(Rule.PATTERN_RANK, i, s, field + "/block", null, "the pattern addresses a rank-" + rank + " tensor but '" + t.name() + "' has shape " + t.shape());
            ok = false;
        }
        for (int k = 0; k < origin.size(); k++) {
            for (Offset.Term term : origin.get(k).terms()) {
                switch (term) {
                    case Offset.Term.OfParam pt -> {
                        if (!d.params().containsKey(pt.param())) {
                            f.stage(Rule.UNKNOWN_PARAM, i, s, field + "/origin/" + k, null, "offset names parameter '" + pt.param() + "', which is not declared");
                            ok = false;
                        }
                    }
                    case Offset.Term.OfBuffer bt -> scalarIndexBuffer(i, s, bt.buffer(), field + "/origin/" + k);
                }
            }
        }
        int indexLength = 0;
        if (p instanceof AccessPattern.Indirect ind) {
            BufferDecl ib = d.buffers().get(ind.indexBuffer());
            if (ib == null) {
                f.stage(Rule.UNKNOWN_BUFFER, i, s, field + "/indexBuffer", ind.indexBuffer(), "index buffer '" + ind.indexBuffer() + "' is not declared");
                ok = false;
            } else {
                if (ib.dtype() != DType.I32 || ib.shape().rank() != 1) {
                    f.stage(Rule.INDEX_BUFFER_TYPE, i, s, field + "/indexBuffer", ib.name(), "index buffer '" + ib.name() + "' must be a rank-1 i32 buffer, not " + ib.dtype() + ib.shape());
                    ok = false;
                } else {
                    indexLength = ib.shape().dim(0);
                }
                if (!ib.site().equals(s.site())) {
                    f.stage(Rule.BUFFER_WRONG_SITE, i, s, field + "/indexBuffer", ib.name(), "index buffer '" + ib.name() + "' lives on " + ib.site() + " but the stage runs on " + s.site());
                }
            }
        }
        if (p instanceof AccessPattern.Streamed st) {
            if (st.axis() < 0 || st.axis() >= st.block().rank()) {
                f.stage(Rule.PATTERN_AXIS, i, s, field + "/axis", null, "streams along axis " + st.axis() + " of a rank-" + st.block().rank() + " block");
                ok = false;
            } else if (st.stride() < st.block().dim(st.axis())) {
                f.stage(Rule.PATTERN_STRIDE, i, s, field + "/stride", null, "stride " + st.stride() + " is smaller than the block's extent " + st.block().dim(st.axis()) + " along axis " + st.axis() + ", so blocks would overlap");
            }
        }
        // A streamed pattern's extent depends on its block count: Load and Store check it.
        if (ok && t != null && !(p instanceof AccessPattern.Streamed)) {
            fits(i, s, t, p, field, -1, 0);
        }
        return ok ? indexLength : null;
    }

    /**
     * Reports a block that can leave its tensor for some parameter value in range. {@code extraAxis}
     * and {@code extra} widen the origin's range on one axis (the last streamed block).
     */
    private void fits(int i, Stage s, TensorDecl t, AccessPattern p, String field, int extraAxis, long extra) {
        List<Offset> origin = p.originOffsets();
        int axisShift = p instanceof AccessPattern.Indirect ? 1 : 0;
        Shape block = p.block();
        for (int k = 0; k < origin.size() && k < block.rank(); k++) {
            Bounds b = Bounds.of(origin.get(k), d.params());
            if (b == null) {
                continue;
            }
            int axis = k + axisShift;
            long hi = k == extraAxis ? saturatingAdd(b.max(), extra) : b.max();
            long end = saturatingAdd(hi, block.dim(k));
            if (b.min() < 0 || end > t.shape().dim(axis)) {
                f.stage(Rule.BLOCK_OUT_OF_BOUNDS, i, s, field + "/origin/" + k, null,
                        "along axis " + axis + " the block covers [" + b.min() + ", " + end + ") for some parameter value in range, outside tensor '" + t.name() + "' of extent " + t.shape().dim(axis));
            }
        }
    }

    /**
     * {@code blocks x stride}, the last streamed block's distance from the first, saturated at
     * Long.MAX_VALUE: a wrapped product went negative and let a block far outside the tensor pass.
     * Both factors are non-negative here (PATTERN_STRIDE rejects a stride below the extent).
     */
    private static long saturatingMultiply(long blocks, long stride) {
        try {
            return Math.multiplyExact(blocks, stride);
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    private static long saturatingAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    private void scalarIndexBuffer(int i, Stage s, String name, String field) {
        BufferDecl b = d.buffers().get(name);
        if (b == null) {
            f.stage(Rule.UNKNOWN_BUFFER, i, s, field, name, "offset reads buffer '" + name + "', which is not declared");
        } else if (b.dtype() != DType.I32 || b.shape().elementCount() != 1) {
            f.stage(Rule.INDEX_BUFFER_TYPE, i, s, field, name, "offset buffer '" + name + "' must be a one-element i32 buffer, not " + b.dtype() + b.shape());
        } else if (!b.site().equals(s.site())) {
            f.stage(Rule.BUFFER_WRONG_SITE, i, s, field, name, "offset buffer '" + name + "' lives on " + b.site() + " but the stage runs on " + s.site());
        }
    }

}
