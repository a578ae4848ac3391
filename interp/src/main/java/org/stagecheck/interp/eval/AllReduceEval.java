package org.stagecheck.interp.eval;

import java.util.HashSet;
import java.util.Set;

import org.stagecheck.backend.FaultCode;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.rules.Rule;

/**
 * {@code AllReduce} (brief, "Stages"): the combine is evaluated as the {@code Generic} op it is,
 * with {@code in_i} the partial at input port {@code i}; the port order is therefore the fold
 * order ({@code add(add(in0, in1), in2)} adds in0 and in1 first). Every output receives the
 * result. Members are the chips of the input buffers; two partials on one chip is a fault.
 */
final class AllReduceEval {
    private AllReduceEval() {
    }

    static void run(Stage st, StageKind.AllReduce k, RunState s) throws Fault {
        Set<Integer> chips = new HashSet<>();
        for (int i = 0; i < st.ins().size(); i++) {
            String in = st.ins().get(i);
            if (!chips.add(s.bufferDecl(in).site().chip())) {
                throw new Fault(Rule.ALLREDUCE_MEMBERS, "ins/" + i, in, "partial '" + in + "' is on chip "
                        + s.bufferDecl(in).site().chip() + ", which already holds another partial of this all-reduce.");
            }
        }
        GenericEval.run(st, k.combine(), s);
    }
}
