package org.stagecheck.backend;

import java.util.List;

import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.validate.Validator;

/**
 * The gate every backend passes a program through before running it (brief, "Modules": one
 * contract behind one seam): the structural validator's findings, unchanged. A backend that finds
 * any runs nothing and answers with them, so the interpreter and the CUDA backend refuse a bad
 * program with the same diagnostics. Applied once per {@link Backend#prepare}, never per run.
 */
public final class Validation {
    private Validation() {
    }

    /** The validator's findings on {@code program}; empty when a backend may run it. */
    public static List<Diagnostic> findings(Program program) {
        return new Validator().validate(program);
    }
}
