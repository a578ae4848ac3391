package org.stagecheck.interp.eval;

import java.util.ArrayList;
import java.util.List;

import org.stagecheck.backend.FaultCode;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.rules.Rule;

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
        List<DType> dtypes = new ArrayList<>();
        for (String out : st.outs()) {
            dtypes.add(s.bufferDecl(out).dtype());
        }
        // one fresh tensor per output, each rounded once from the expression's value to its dtype
        Tensor[] values = ExprEval.evaluate(s, st, 0, g.expr(), first.shape(), ins, false, dtypes,
                java.util.Collections.nCopies(dtypes.size(), first.shape()));
        for (int o = 0; o < values.length; o++) {
            String out = st.outs().get(o);
            BufferDecl bd = s.bufferDecl(out);
            if (!bd.shape().equals(first.shape())) {
                throw new Fault(Rule.PORT_COUNT, "outs", out, "every output receives the same value, but '" + out + "' is "
                        + bd.shape() + " and '" + first.name() + "' is " + first.shape() + ".");
            }
            s.write(out, values[o]);
        }
    }
}
