package org.stagecheck.spec.validate;

import java.util.List;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.ValueType;
import org.stagecheck.spec.rules.OpRules;
import org.stagecheck.spec.rules.Rule;

/**
 * Structural rules of {@code Compute} stages, one method per {@link ComputeOp}: the ports and the
 * buffers the op names are resolved here, their shapes and dtypes judged by {@link OpRules}.
 */
final class OpChecks {
    private final Validator.Declarations d;
    private final Findings f;
    /** The expressions' types, each expression typed once (shared with the other kinds' checks). */
    private final ExprTypes exprTypes;

    OpChecks(Validator.Declarations d, Findings f, ExprTypes exprTypes) {
        this.d = d;
        this.f = f;
        this.exprTypes = exprTypes;
    }

    void check(int i, Stage s, ComputeOp op, List<BufferDecl> ins, List<BufferDecl> outs) {
        switch (op) {
            case ComputeOp.Generic g -> generic(i, s, g, ins, outs);
            case ComputeOp.MatMul m -> matmul(i, s, m, ins, outs);
            case ComputeOp.Reduce r -> {
                if (ports(i, s, op, ins, outs)) {
                    f.stage(i, s, OpRules.reduce(r, ins.get(0), outs.get(0)));
                }
            }
            case ComputeOp.Reshape r -> {
                if (ports(i, s, op, ins, outs)) {
                    f.stage(i, s, OpRules.reshape(ins.get(0), outs.get(0)));
                }
            }
            case ComputeOp.Transpose t -> {
                if (ports(i, s, op, ins, outs)) {
                    f.stage(i, s, OpRules.transpose(t, ins.get(0), outs.get(0)));
                }
            }
            case ComputeOp.Slice sl -> {
                if (ports(i, s, op, ins, outs)) {
                    f.stage(i, s, OpRules.slice(sl, ins.get(0), outs.get(0)));
                }
            }
            case ComputeOp.Concat c -> concat(i, s, c, ins, outs);
        }
    }

    /** The op's port counts ({@link OpRules#ports}); true when they hold and every port is declared. */
    private boolean ports(int i, Stage s, ComputeOp op, List<BufferDecl> ins, List<BufferDecl> outs) {
        var broken = OpRules.ports(op, ins.size(), outs.size());
        f.stage(i, s, broken);
        return broken.isEmpty() && !ins.contains(null) && !outs.contains(null);
    }

    private void generic(int i, Stage s, ComputeOp.Generic g, List<BufferDecl> ins, List<BufferDecl> outs) {
        if (!ports(i, s, g, ins, outs)) {
            return;
        }
        BufferDecl out = outs.get(0);
        f.stage(i, s, OpRules.generic(ins, out));
        ValueType[] types = new ValueType[ins.size()];
        for (int k = 0; k < types.length; k++) {
            types[k] = ValueType.of(ins.get(k).dtype());
        }
        try {
            ValueType t = exprTypes.type(g.expr(), types, out.shape().rank());
            if (t != ValueType.of(out.dtype())) {
                f.stage(Rule.EXPR_TYPE, i, s, "kind/op/expr", out.name(), "the expression yields " + t + " but output '" + out.name() + "' is " + out.dtype()
                        + (t == ValueType.BOOL ? " (cast a condition with i32(...) or f32(...))" : " (write an explicit cast)"));
            }
        } catch (ExprTyper.TypeError e) {
            f.stage(Rule.EXPR_TYPE, i, s, "kind/op/expr", null, e.getMessage());
        }
    }

    private void matmul(int i, Stage s, ComputeOp.MatMul m, List<BufferDecl> ins, List<BufferDecl> outs) {
        boolean portsOk = ports(i, s, m, ins, outs);
        BufferDecl out = portsOk ? outs.get(0) : null;
        if (portsOk) {
            f.stage(i, s, OpRules.matmul(m, ins.get(0), ins.get(1), out));
        }
        if (m.bias() != null) {
            BufferDecl bias = internal(i, s, m.bias(), "kind/op/bias", "bias");
            if (bias != null && out != null) {
                f.stage(i, s, OpRules.matmulBias(bias, out));
            }
        }
        if (m.spill() != null) {
            BufferDecl spill = internal(i, s, m.spill(), "kind/op/spill", "spill");
            if (spill != null && out != null) {
                f.stage(i, s, OpRules.matmulSpill(spill, out));
            }
        }
    }

    private BufferDecl internal(int i, Stage s, String name, String field, String role) {
        BufferDecl b = d.buffers().get(name);
        if (b == null) {
            f.stage(Rule.UNKNOWN_BUFFER, i, s, field, name, role + " buffer '" + name + "' is not declared");
            return null;
        }
        if (!b.site().equals(s.site())) {
            f.stage(Rule.BUFFER_WRONG_SITE, i, s, field, name, role + " buffer '" + name + "' lives on " + b.site() + " but the stage runs on " + s.site());
        }
        return b;
    }

    private void concat(int i, Stage s, ComputeOp.Concat c, List<BufferDecl> ins, List<BufferDecl> outs) {
        if (!ports(i, s, c, ins, outs)) {
            return;
        }
        f.stage(i, s, OpRules.concat(c, ins, outs.get(0)));
    }
}
