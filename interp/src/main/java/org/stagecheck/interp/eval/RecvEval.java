package org.stagecheck.interp.eval;

import org.stagecheck.backend.FaultCode;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.Group;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.rules.MoveRules;
import org.stagecheck.spec.rules.Rule;

/**
 * {@code Recv} (brief, "Stages"): output port 0 receives the latest delivery of the group's
 * sender to this core, bits unchanged. Nothing delivered yet is the fault {@code RECV_WITHOUT_LOAD};
 * a buffer of another dtype or shape than the delivered value is {@code RECV_SHAPE}
 * ({@link MoveRules#recv}, as the validator).
 */
final class RecvEval {
    private RecvEval() {
    }

    static void run(Stage st, StageKind.Recv k, RunState s) throws Fault {
        Group g = s.group(k.group());
        if (!s.receivers(g).contains(st.site())) {
            throw new Fault(Rule.RECV_NOT_RECEIVER, "kind/group", null, "core " + st.site() + " is not a receiver of group '"
                    + g.name() + "'.");
        }
        Tensor value = s.delivered(g.name());
        if (value == null) {
            throw new Fault(FaultCode.RECV_WITHOUT_LOAD, "kind/group", null, "nothing was delivered to " + st.site()
                    + " by group '" + g.name() + "': no multicast Load of the group ran before this stage.");
        }
        String out = Ports.out(st, 0);
        BufferDecl bd = s.bufferDecl(out);
        Fault.throwFirst(MoveRules.recv(g.name(), value.dtype(), value.shape(), bd));
        // the delivered value is never changed after it is written (every write makes a new value): share it
        s.write(out, value);
    }
}
