package org.stagecheck.interp.eval;

import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;

/**
 * One room per stage kind (STYLE, "An interpreter with one room per kind"): this switch is the
 * registry, exhaustive over the sealed kinds and ops with no default branch.
 */
public final class StageEvaluator {
    private StageEvaluator() {
    }

    public static void run(Stage st, RunState s) throws Fault {
        switch (st.kind()) {
            case StageKind.Load l -> LoadEval.run(st, l, s);
            case StageKind.Store k -> StoreEval.run(st, k, s);
            case StageKind.Recv r -> RecvEval.run(st, r, s);
            case StageKind.AllReduce a -> AllReduceEval.run(st, a, s);
            case StageKind.Scalar sc -> ScalarEval.run(st, sc, s);
            case StageKind.Compute c -> {
                s.holdToRules(st, c.op());
                switch (c.op()) {
                    case ComputeOp.Generic g -> GenericEval.run(st, g, s);
                    case ComputeOp.MatMul m -> MatMulEval.run(st, m, s);
                    case ComputeOp.Reduce r -> ReduceEval.run(st, r, s);
                    case ComputeOp.Reshape r -> LayoutEval.reshape(st, s);
                    case ComputeOp.Transpose t -> LayoutEval.transpose(st, t, s);
                    case ComputeOp.Slice sl -> LayoutEval.slice(st, sl, s);
                    case ComputeOp.Concat cc -> LayoutEval.concat(st, cc, s);
                }
            }
        }
    }
}
