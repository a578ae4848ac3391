package org.stagecheck.cuda;

import java.util.List;
import java.util.Map;

import org.stagecheck.backend.Bindings;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.validate.Validator;
import org.stagecheck.tensor.Tensor;

/**
 * Everything checked before any native call (brief, "CUDA backend": no input crashes the JVM):
 * the program is well-formed (the validator's findings, unchanged), and the bindings and
 * parameters are those the reference demands, with its diagnostic codes (docs/semantics.md,
 * "Running a program").
 */
public final class Preflight {
    private Preflight() {
    }

    /** The validator's findings on {@code program}; the backend runs nothing when there are any. */
    public static List<Diagnostic> program(Program program) {
        return new Validator().validate(program);
    }

    /** Faults of the bindings and parameters of one run: {@link Bindings#check}'s, as the reference reports them. */
    public static List<Diagnostic> bindings(Program program, Map<String, Tensor> bound, Map<String, Long> params) {
        return Bindings.faults(program, bound, params, Bindings.Float64.REFUSED);
    }
}
