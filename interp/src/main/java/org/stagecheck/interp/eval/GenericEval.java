package org.stagecheck.interp.eval;

import java.util.ArrayList;
import java.util.List;

import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Stage;

/**
 * {@code Compute(Generic)} and the {@code AllReduce} combine (brief, "Stages"): the expression
 * evaluated per element of the output shape with the inputs broadcast to it, the result rounded
 * once to each output's dtype. Every output port receives the same value.
 */
final class GenericEval {
    private GenericEval() {
    }

    static void run(Stage st, ComputeOp.Generic g, RunState s) throws Fault {
        List<Tensor> ins = new ArrayList<>();
        for (String in : st.ins()) {
            ins.add(s.read(in));
        }
        BufferDecl first = s.bufferDecl(Ports.out(st, 0));
        ExprEval ev = new ExprEval(s, first.shape(), ins, false);
        Col c = ev.owned(ev.eval(g.expr()));
        for (String out : st.outs()) {
            BufferDecl bd = s.bufferDecl(out);
            if (!bd.shape().equals(first.shape())) {
                throw new Fault("OUTPUT_SHAPE", "outs", out, "every output receives the same value, but '" + out + "' is "
                        + bd.shape() + " and '" + first.name() + "' is " + first.shape() + ".");
            }
            s.write(out, Values.ofCol(c, bd.dtype(), bd.shape(), s.f64()));
        }
    }
}
