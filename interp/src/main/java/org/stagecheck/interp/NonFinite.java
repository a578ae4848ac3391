package org.stagecheck.interp;

import java.util.List;

import org.stagecheck.backend.FaultCode;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Stage;

/** The stop-at-first-NaN/Inf check (brief, "Reference semantics"): the first output element the mode stops at. */
final class NonFinite {
    private NonFinite() {
    }

    static Diagnostic check(int index, Stage st, List<Tensor> outs, NonFiniteStop mode) {
        for (int p = 0; p < outs.size(); p++) {
            Tensor t = outs.get(p);
            if (!t.dtype().isFloating()) {
                continue;
            }
            for (long e = 0; e < t.size(); e++) {
                double v = t.getDouble(e);
                if (mode.stopsAt(v)) {
                    String buffer = st.outs().get(p);
                    return FaultCode.NON_FINITE.atStage(index, st.id(), "/stages/" + index + "/outs/" + p, buffer,
                            "Stage '" + st.id() + "' wrote " + v + " to buffer '" + buffer + "' at element " + e
                                    + " (the first " + what(mode) + " value of the run).");
                }
            }
        }
        return null;
    }

    private static String what(NonFiniteStop mode) {
        return switch (mode) {
            case NAN -> "NaN";
            case INF -> "infinite";
            case ANY, NONE -> "non-finite";
        };
    }
}
