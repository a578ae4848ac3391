package org.stagecheck.interp.eval;

import java.util.ArrayList;
import java.util.List;

import org.stagecheck.backend.FaultCode;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.rules.Rule;

/**
 * {@code Scalar} (brief, "Stages"): result expression {@code k} over parameters, constants and the
 * single elements of the one-element inputs, written to one-element output port {@code k}, with the
 * same value semantics as {@code Generic}. Results are computed in order and all inputs are read
 * before any output is written.
 */
final class ScalarEval {
    private ScalarEval() {
    }

    static void run(Stage st, StageKind.Scalar k, RunState s) throws Fault {
        List<Tensor> ins = new ArrayList<>();
        for (String in : st.ins()) {
            ins.add(s.read(in));
        }
        List<Expr> results = k.body().results();
        if (results.size() != st.outs().size()) {
            throw new Fault(Rule.PORT_COUNT, "outs", null, "the body has " + results.size() + " results but the stage "
                    + st.outs().size() + " output ports.");
        }
        List<Tensor> values = new ArrayList<>();
        for (int r = 0; r < results.size(); r++) {
            BufferDecl bd = s.bufferDecl(st.outs().get(r));
            if (bd.shape().elementCount() != 1) {
                throw new Fault(Rule.SCALAR_SHAPE, "outs/" + r, bd.name(), "a Scalar stage writes one-element buffers; '"
                        + bd.name() + "' is " + bd.shape() + ".");
            }
            values.add(ExprEval.evaluate(s, st, r, results.get(r), bd.shape(), ins, true, List.of(bd.dtype()),
                    List.of(bd.shape()))[0]);
        }
        for (int r = 0; r < values.size(); r++) {
            s.write(st.outs().get(r), values.get(r));
        }
    }
}
