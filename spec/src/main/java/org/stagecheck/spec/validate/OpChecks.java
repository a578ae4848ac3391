package org.stagecheck.spec.validate;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.ValueType;

/** Structural rules of {@code Compute} stages, one method per {@link ComputeOp}. */
final class OpChecks {
    private final Validator.Declarations d;
    private final Findings f;

    OpChecks(Validator.Declarations d, Findings f) {
        this.d = d;
        this.f = f;
    }

    void check(int i, Stage s, ComputeOp op, List<BufferDecl> ins, List<BufferDecl> outs) {
        switch (op) {
            case ComputeOp.Generic g -> generic(i, s, g, ins, outs);
            case ComputeOp.MatMul m -> matmul(i, s, m, ins, outs);
            case ComputeOp.Reduce r -> reduce(i, s, r, ins, outs);
            case ComputeOp.Reshape r -> reshape(i, s, ins, outs);
            case ComputeOp.Transpose t -> transpose(i, s, t, ins, outs);
            case ComputeOp.Slice sl -> slice(i, s, sl, ins, outs);
            case ComputeOp.Concat c -> concat(i, s, c, ins, outs);
        }
    }

    private void generic(int i, Stage s, ComputeOp.Generic g, List<BufferDecl> ins, List<BufferDecl> outs) {
        if (!KindChecks.arity(f, i, s, ins, -1, outs, 1, "a generic op")) {
            return;
        }
        BufferDecl out = outs.get(0);
        for (int k = 0; k < ins.size(); k++) {
            BufferDecl in = ins.get(k);
            if (!broadcasts(in.shape(), out.shape())) {
                f.stage("BROADCAST", i, s, "ins/" + k, in.name(), "input '" + in.name() + "' of shape " + in.shape() + " does not broadcast to the output shape " + out.shape());
            }
        }
        List<ValueType> types = ins.stream().map(b -> ValueType.of(b.dtype())).toList();
        try {
            ValueType t = new ExprTyper(types, d.params().keySet(), out.shape().rank()).type(g.expr());
            if (t != ValueType.of(out.dtype())) {
                f.stage("EXPR_TYPE", i, s, "kind/op/expr", out.name(), "the expression yields " + t + " but output '" + out.name() + "' is " + out.dtype()
                        + (t == ValueType.BOOL ? " (cast a condition with i32(...) or f32(...))" : " (write an explicit cast)"));
            }
        } catch (ExprTyper.TypeError e) {
            f.stage("EXPR_TYPE", i, s, "kind/op/expr", null, e.getMessage());
        }
    }

    /** numpy broadcasting: align trailing axes; each input extent equals the output's or is 1. */
    static boolean broadcasts(Shape in, Shape out) {
        if (in.rank() > out.rank()) {
            return false;
        }
        int shift = out.rank() - in.rank();
        for (int k = 0; k < in.rank(); k++) {
            int a = in.dim(k);
            if (a != 1 && a != out.dim(k + shift)) {
                return false;
            }
        }
        return true;
    }

    private void matmul(int i, Stage s, ComputeOp.MatMul m, List<BufferDecl> ins, List<BufferDecl> outs) {
        boolean portsOk = KindChecks.arity(f, i, s, ins, 2, outs, 1, "a MatMul");
        BufferDecl out = portsOk ? outs.get(0) : null;
        if (portsOk) {
            BufferDecl a = ins.get(0);
            BufferDecl b = ins.get(1);
            if (a.shape().rank() != 2 || b.shape().rank() != 2 || out.shape().rank() != 2) {
                f.stage("MATMUL_SHAPE", i, s, "ins", null, "a MatMul multiplies rank-2 buffers; found " + a.shape() + " x " + b.shape() + " -> " + out.shape());
            } else {
                int am = m.transposeA() ? a.shape().dim(1) : a.shape().dim(0);
                int ak = m.transposeA() ? a.shape().dim(0) : a.shape().dim(1);
                int bk = m.transposeB() ? b.shape().dim(1) : b.shape().dim(0);
                int bn = m.transposeB() ? b.shape().dim(0) : b.shape().dim(1);
                if (ak != bk) {
                    f.stage("MATMUL_SHAPE", i, s, "ins/1", b.name(), "contraction extents differ: '" + a.name() + "' gives K=" + ak + " but '" + b.name() + "' gives K=" + bk);
                } else if (out.shape().dim(0) != am || out.shape().dim(1) != bn) {
                    f.stage("MATMUL_SHAPE", i, s, "outs/0", out.name(), "the product is [" + am + ", " + bn + "] but output '" + out.name() + "' has shape " + out.shape());
                }
            }
            for (int k = 0; k < 2; k++) {
                if (!ins.get(k).dtype().isFloating()) {
                    f.stage("DTYPE_MISMATCH", i, s, "ins/" + k, ins.get(k).name(), "a MatMul multiplies floating buffers; '" + ins.get(k).name() + "' is " + ins.get(k).dtype());
                }
            }
            if (!out.dtype().isFloating()) {
                f.stage("DTYPE_MISMATCH", i, s, "outs/0", out.name(), "a MatMul writes a floating buffer; '" + out.name() + "' is " + out.dtype());
            }
        }
        if (m.bias() != null) {
            BufferDecl bias = internal(i, s, m.bias(), "kind/op/bias", "bias");
            if (bias != null && out != null && (!broadcasts(bias.shape(), out.shape()) || !bias.dtype().isFloating())) {
                f.stage("MATMUL_BIAS", i, s, "kind/op/bias", bias.name(), "bias '" + bias.name() + "' (" + bias.dtype() + bias.shape() + ") must be floating and broadcast to the output shape " + out.shape());
            }
        }
        if (m.spill() != null) {
            BufferDecl spill = internal(i, s, m.spill(), "kind/op/spill", "spill");
            if (spill != null && out != null && (spill.dtype() != DType.F32 || !spill.shape().equals(out.shape()))) {
                f.stage("MATMUL_SPILL", i, s, "kind/op/spill", spill.name(), "spill '" + spill.name() + "' is the f32 accumulator and must be f32" + out.shape() + ", not " + spill.dtype() + spill.shape());
            }
        }
    }

    private BufferDecl internal(int i, Stage s, String name, String field, String role) {
        BufferDecl b = d.buffers().get(name);
        if (b == null) {
            f.stage("UNKNOWN_BUFFER", i, s, field, name, role + " buffer '" + name + "' is not declared");
            return null;
        }
        if (!b.site().equals(s.site())) {
            f.stage("BUFFER_WRONG_SITE", i, s, field, name, role + " buffer '" + name + "' lives on " + b.site() + " but the stage runs on " + s.site());
        }
        return b;
    }

    private void reduce(int i, Stage s, ComputeOp.Reduce r, List<BufferDecl> ins, List<BufferDecl> outs) {
        if (!KindChecks.arity(f, i, s, ins, 1, outs, 1, "a Reduce")) {
            return;
        }
        BufferDecl in = ins.get(0);
        BufferDecl out = outs.get(0);
        if (r.axis() < 0 || r.axis() >= in.shape().rank()) {
            f.stage("REDUCE_AXIS", i, s, "kind/op/axis", null, "reduces axis " + r.axis() + " of a rank-" + in.shape().rank() + " input");
            return;
        }
        Shape expected = in.shape().withDim(r.axis(), 1);
        if (!expected.equals(out.shape())) {
            f.stage("REDUCE_SHAPE", i, s, "outs/0", out.name(), "reducing axis " + r.axis() + " of " + in.shape() + " gives " + expected + " (the axis is kept with extent 1), not " + out.shape());
        }
        if (r.fn() == ReduceFn.ARGMAX) {
            if (in.shape().dim(r.axis()) == 0) {
                // sum/max/min of nothing have identities (0, -inf, +inf); an index of the maximum of nothing does not
                f.stage("EMPTY_REDUCE", i, s, "kind/op/axis", null, "argmax over axis " + r.axis() + " of " + in.shape() + ", which is empty, has no answer");
            }
            if (out.dtype() != DType.I32) {
                f.stage("DTYPE_MISMATCH", i, s, "outs/0", out.name(), "argmax writes i32 indices; '" + out.name() + "' is " + out.dtype());
            }
        } else if (ValueType.of(out.dtype()) != ValueType.of(in.dtype())) {
            f.stage("DTYPE_MISMATCH", i, s, "outs/0", out.name(), r.fn().jsonName() + " of " + in.dtype() + " cannot be written to " + out.dtype());
        }
    }

    private void reshape(int i, Stage s, List<BufferDecl> ins, List<BufferDecl> outs) {
        if (!KindChecks.arity(f, i, s, ins, 1, outs, 1, "a reshape")) {
            return;
        }
        BufferDecl in = ins.get(0);
        BufferDecl out = outs.get(0);
        if (in.shape().elementCount() != out.shape().elementCount()) {
            f.stage("LAYOUT_SHAPE", i, s, "outs/0", out.name(), "reshape keeps the element count, but " + in.shape() + " has " + in.shape().elementCount() + " and " + out.shape() + " has " + out.shape().elementCount());
        }
        sameDtype(i, s, in, out);
    }

    private void transpose(int i, Stage s, ComputeOp.Transpose t, List<BufferDecl> ins, List<BufferDecl> outs) {
        if (!KindChecks.arity(f, i, s, ins, 1, outs, 1, "a transpose")) {
            return;
        }
        BufferDecl in = ins.get(0);
        BufferDecl out = outs.get(0);
        int rank = in.shape().rank();
        Set<Integer> seen = new HashSet<>(t.perm());
        boolean isPerm = t.perm().size() == rank && seen.size() == rank && t.perm().stream().allMatch(a -> a >= 0 && a < rank);
        if (!isPerm) {
            f.stage("LAYOUT_SHAPE", i, s, "kind/op/perm", null, t.perm() + " is not a permutation of the " + rank + " axes of " + in.shape());
            return;
        }
        List<Integer> dims = new ArrayList<>();
        for (int a : t.perm()) {
            dims.add(in.shape().dim(a));
        }
        if (!new Shape(dims).equals(out.shape())) {
            f.stage("LAYOUT_SHAPE", i, s, "outs/0", out.name(), "transposing " + in.shape() + " by " + t.perm() + " gives " + dims + ", not " + out.shape());
        }
        sameDtype(i, s, in, out);
    }

    private void slice(int i, Stage s, ComputeOp.Slice sl, List<BufferDecl> ins, List<BufferDecl> outs) {
        if (!KindChecks.arity(f, i, s, ins, 1, outs, 1, "a slice")) {
            return;
        }
        BufferDecl in = ins.get(0);
        BufferDecl out = outs.get(0);
        if (sl.starts().size() != in.shape().rank() || out.shape().rank() != in.shape().rank()) {
            f.stage("LAYOUT_SHAPE", i, s, "kind/op/starts", null, "a slice of " + in.shape() + " needs " + in.shape().rank() + " starts and an output of that rank");
            return;
        }
        for (int k = 0; k < sl.starts().size(); k++) {
            long start = sl.starts().get(k);
            if (start < 0 || start + out.shape().dim(k) > in.shape().dim(k)) {
                f.stage("LAYOUT_SHAPE", i, s, "kind/op/starts/" + k, null, "the window [" + start + ", " + (start + out.shape().dim(k)) + ") leaves axis " + k + " of extent " + in.shape().dim(k));
            }
        }
        sameDtype(i, s, in, out);
    }

    private void concat(int i, Stage s, ComputeOp.Concat c, List<BufferDecl> ins, List<BufferDecl> outs) {
        if (!KindChecks.arity(f, i, s, ins, -1, outs, 1, "a concat") || ins.isEmpty()) {
            if (ins.isEmpty()) {
                f.stage("PORT_COUNT", i, s, "ins", null, "a concat needs at least one input");
            }
            return;
        }
        BufferDecl out = outs.get(0);
        int rank = out.shape().rank();
        if (c.axis() < 0 || c.axis() >= rank) {
            f.stage("LAYOUT_SHAPE", i, s, "kind/op/axis", null, "concatenates along axis " + c.axis() + " of a rank-" + rank + " output");
            return;
        }
        long total = 0;
        for (int k = 0; k < ins.size(); k++) {
            BufferDecl in = ins.get(k);
            boolean ok = in.shape().rank() == rank;
            for (int a = 0; ok && a < rank; a++) {
                ok = a == c.axis() || in.shape().dim(a) == out.shape().dim(a);
            }
            if (!ok) {
                f.stage("LAYOUT_SHAPE", i, s, "ins/" + k, in.name(), "input '" + in.name() + "' of shape " + in.shape() + " does not match output " + out.shape() + " off axis " + c.axis());
                return;
            }
            total += in.shape().dim(c.axis());
            sameDtype(i, s, in, out);
        }
        if (total != out.shape().dim(c.axis())) {
            f.stage("LAYOUT_SHAPE", i, s, "outs/0", out.name(), "the inputs add up to " + total + " along axis " + c.axis() + " but output '" + out.name() + "' has " + out.shape().dim(c.axis()));
        }
    }

    private void sameDtype(int i, Stage s, BufferDecl in, BufferDecl out) {
        if (in.dtype() != out.dtype()) {
            f.stage("DTYPE_MISMATCH", i, s, "outs/0", out.name(), "layout ops keep the dtype: '" + in.name() + "' is " + in.dtype() + " but '" + out.name() + "' is " + out.dtype());
        }
    }
}
