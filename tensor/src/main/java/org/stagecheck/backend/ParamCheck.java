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
 * a parameter. {@link Bindings#check} applies it with the tensor bindings; every backend and the
 * command line call that same check, so they cannot disagree on what a valid binding is.
 */
public final class ParamCheck {
    private ParamCheck() {
    }

    /** The problems of {@code params} for {@code program}: declared ones in declaration order, then unknown names; empty when valid. */
    public static List<BindingProblem> problems(Program program, Map<String, Long> params) {
        List<BindingProblem> problems = new ArrayList<>();
        Map<String, Param> declared = program.paramsByName();
        for (Param p : program.params()) {
            Long v = params.get(p.name());
            String range = "[" + p.min() + ", " + p.max() + "]";
            if (v == null) {
                problems.add(new BindingProblem(BindingProblem.Code.PARAM_UNBOUND, "/params/" + p.name(), p.name(), range, null,
                        "Parameter '" + p.name() + "' has no value for this run; it takes a value in " + range + "."));
            } else if (v < p.min() || v > p.max()) {
                problems.add(new BindingProblem(BindingProblem.Code.PARAM_OUT_OF_RANGE, "/params/" + p.name(), p.name(), range, v.toString(),
                        "Parameter '" + p.name() + "' is " + v + ", outside its declared range " + range + "."));
            }
        }
        for (Map.Entry<String, Long> e : params.entrySet()) {
            if (!declared.containsKey(e.getKey())) {
                problems.add(new BindingProblem(BindingProblem.Code.PARAM_UNKNOWN, "/params", e.getKey(), null, String.valueOf(e.getValue()),
                        "A value was given for '" + e.getKey() + "', which is not a parameter of the program."));
            }
        }
        return problems;
    }

    /** {@link #problems} as faults, in the same order; empty when they are valid. */
    public static List<Diagnostic> faults(Program program, Map<String, Long> params) {
        return problems(program, params).stream().map(BindingProblem::toDiagnostic).toList();
    }
}
