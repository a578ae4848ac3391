package org.stagecheck.interp.eval;

import java.util.List;

import org.stagecheck.backend.FaultCode;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.rules.Rule;

/** Port lookups that fault, rather than throw, when a stage has too few ports. */
final class Ports {
    private Ports() {
    }

    static String in(Stage st, int i) throws Fault {
        return port(st.ins(), i, "ins");
    }

    static String out(Stage st, int i) throws Fault {
        return port(st.outs(), i, "outs");
    }

    private static String port(List<String> ports, int i, String side) throws Fault {
        if (i >= ports.size()) {
            throw new Fault(Rule.PORT_COUNT, side, null, "the stage needs " + side + "[" + i + "] but has " + ports.size() + " " + side + " ports.");
        }
        return ports.get(i);
    }
}
