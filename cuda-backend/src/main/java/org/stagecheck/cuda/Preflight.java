package org.stagecheck.cuda;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.TensorDecl;
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

    /** Faults of the bindings and parameters of one run. */
    public static List<Diagnostic> bindings(Program program, Map<String, Tensor> bound, Map<String, Long> params) {
        List<Diagnostic> faults = new ArrayList<>();
        faults.addAll(org.stagecheck.backend.ParamCheck.faults(program, params));
        Map<String, TensorDecl> decls = program.tensorsByName();
        for (String name : bound.keySet()) {
            if (!decls.containsKey(name)) {
                faults.add(Diagnostic.atField("BINDING_UNKNOWN", "/tensors", "A value was bound to '" + name + "', which is not a tensor of the program."));
            }
        }
        for (TensorDecl d : decls.values()) {
            Tensor t = bound.get(d.name());
            String field = "/tensors/" + d.name();
            if (t == null) {
                if (d.role().isBoundBeforeRun()) {
                    faults.add(Diagnostic.atField("MISSING_INPUT", field, "Tensor '" + d.name() + "' (" + d.role().jsonName() + ") has no bound value."));
                }
            } else if (t.dtype() != d.dtype() || t.isFloat64()) {
                faults.add(Diagnostic.atField("BINDING_DTYPE", field, "Tensor '" + d.name() + "' is declared " + d.dtype()
                        + " but the bound value is " + t.dtype() + (t.isFloat64() ? " (float64 mode)" : "") + "."));
            } else if (!t.shape().equals(d.shape())) {
                faults.add(Diagnostic.atField("BINDING_SHAPE", field, "Tensor '" + d.name() + "' is declared " + d.shape()
                        + " but the bound value is " + t.shape() + "."));
            }
        }
        return faults;
    }
}
