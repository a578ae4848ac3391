package org.stagecheck.backend;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;

/**
 * The one rule for a run's parameter values (brief, "Reference semantics"): every declared
 * parameter has a value inside its declared range, and no value is given for a name that is not
 * a parameter. The evaluator applies it before the first stage; other backends and the command
 * line call this same check, so they cannot disagree on what a valid binding is.
 */
public final class ParamCheck {
    private ParamCheck() {
    }

    /** The faults of {@code params} for {@code program}, in declaration order; empty when they are valid. */
    public static List<Diagnostic> faults(Program program, Map<String, Long> params) {
        List<Diagnostic> faults = new ArrayList<>();
        Map<String, Param> declared = program.paramsByName();
        for (Param p : program.params()) {
            Long v = params.get(p.name());
            if (v == null) {
                faults.add(Diagnostic.atField("PARAM_UNBOUND", "/params/" + p.name(),
                        "Parameter '" + p.name() + "' has no value for this run; it takes a value in [" + p.min() + ", " + p.max() + "]."));
            } else if (v < p.min() || v > p.max()) {
                faults.add(Diagnostic.atField("PARAM_OUT_OF_RANGE", "/params/" + p.name(),
                        "Parameter '" + p.name() + "' is " + v + ", outside its declared range [" + p.min() + ", " + p.max() + "]."));
            }
        }
        for (String name : params.keySet()) {
            if (!declared.containsKey(name)) {
                faults.add(Diagnostic.atField("PARAM_UNKNOWN", "/params",
                        "A value was given for '" + name + "', which is not a parameter of the program."));
            }
        }
        return faults;
    }
}
