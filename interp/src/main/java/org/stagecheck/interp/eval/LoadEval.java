package org.stagecheck.interp.eval;

import org.stagecheck.backend.FaultCode;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.Group;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.rules.MoveRules;
import org.stagecheck.spec.rules.Rule;

/**
 * {@code Load} (brief, "Stages"): the blocks the pattern selects, in the buffer layout of the
 * pattern, into output port 0, bits unchanged: the buffer has the tensor's dtype and the selection's
 * shape ({@link MoveRules#load}, as the validator). With a multicast group the same value is
 * delivered to every receiver.
 */
final class LoadEval {
    private LoadEval() {
    }

    static void run(Stage st, StageKind.Load l, RunState s) throws Fault {
        TensorDecl td = s.tensorDecl(l.tensor());
        if (td.chip() != st.site().chip()) {
            throw new Fault(Rule.TENSOR_WRONG_CHIP, "kind/tensor", null, "tensor '" + td.name() + "' lives on chip " + td.chip()
                    + " but the stage runs on chip " + st.site().chip() + ".");
        }
        Region r = Region.resolvePlanned(l.pattern(), l.numBlocks(), td, null, s);
        String out = Ports.out(st, 0);
        BufferDecl bd = s.bufferDecl(out);
        Fault.throwFirst(MoveRules.load(td, l.numBlocks(), Shape.of(r.bufferShape()), bd));
        Tensor src = s.tensor(l.tensor());
        boolean sameStorage = src.isFloat64() == (s.f64() && bd.dtype().isFloating());
        if (r.isWhole(td.shape()) && sameStorage) {
            // the whole tensor, same storage: share it (copy-on-write protects it from later stores)
            s.markShared(l.tensor());
            s.write(out, src.reshaped(bd.shape()));
        } else {
            BlockView view = l.multicast() == null && sameStorage ? r.asView(src, bd.shape()) : null;
            if (view != null) {
                // one block in the tensor's own layout: its place, copied only if a reader needs a copy
                s.writeView(out, l.tensor(), view);
            } else {
                Tensor buf = s.output(bd.dtype(), bd.shape());
                r.gather(src, buf);
                s.write(out, buf);
            }
        }
        if (l.multicast() != null) {
            Group g = s.group(l.multicast());
            if (!g.sender().equals(st.site())) {
                throw new Fault(Rule.MULTICAST_SENDER, "kind/multicast", null, "group '" + g.name() + "' is sent by "
                        + g.sender() + ", not by this stage's core " + st.site() + ".");
            }
            s.deliver(g.name(), s.read(out));
        }
    }
}
