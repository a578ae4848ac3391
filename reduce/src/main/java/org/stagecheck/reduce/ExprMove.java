package org.stagecheck.reduce;

import java.util.ArrayList;
import java.util.List;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;

/**
 * Simplifying the expression of a {@code Generic}: one application or cast in the tree is
 * replaced by one of its arguments ({@code add(mul(in0, in1), in2)} -> {@code mul(in0, in1)} or
 * {@code in2}). The typing is the validator's to judge.
 */
final class ExprMove {
    private ExprMove() {}

    /** Every one-step simplification of the expression of stage {@code i}, or none if it is no Generic. */
    static List<Program> simplifications(Program p, int i) {
        Stage s = p.stages().get(i);
        if (!(s.kind() instanceof StageKind.Compute(ComputeOp.Generic g))) {
            return List.of();
        }
        List<Program> out = new ArrayList<>();
        for (Expr e : smaller(g.expr())) {
            List<Stage> stages = new ArrayList<>(p.stages());
            stages.set(i, new Stage(s.id(), s.site(), s.ins(), s.outs(), new StageKind.Compute(new ComputeOp.Generic(e))));
            out.add(p.withStages(stages));
        }
        return out;
    }

    /** The trees that replace one node of {@code e} by one of its arguments. */
    static List<Expr> smaller(Expr e) {
        List<Expr> out = new ArrayList<>();
        switch (e) {
            case Expr.Apply a -> {
                out.addAll(a.args());
                for (int k = 0; k < a.args().size(); k++) {
                    for (Expr sub : smaller(a.args().get(k))) {
                        List<Expr> args = new ArrayList<>(a.args());
                        args.set(k, sub);
                        out.add(new Expr.Apply(a.fn(), args));
                    }
                }
            }
            case Expr.Cast c -> {
                out.add(c.arg());
                for (Expr sub : smaller(c.arg())) {
                    out.add(new Expr.Cast(c.dtype(), sub));
                }
            }
            case Expr.In in -> { }
            case Expr.FloatConst f -> { }
            case Expr.IntConst i -> { }
            case Expr.ParamRef r -> { }
            case Expr.Index x -> { }
        }
        return out;
    }
}
