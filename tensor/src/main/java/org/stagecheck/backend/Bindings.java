package org.stagecheck.backend;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.tensor.Tensor;

/**
 * The one check of a run's inputs (docs/semantics.md, "Running a program"): every tensor of role
 * input, weight or state has a bound value; every bound name is a tensor of the program; every
 * bound value has the declared dtype and shape; every parameter is present, declared and in
 * range ({@link ParamCheck}). The interpreter, the CUDA backend, golden recording and the command
 * line all call it, so they refuse the same inputs with the same words.
 *
 * <p>A null value in {@code bound} is no value (an output or scratch tensor then starts zeroed).
 */
public final class Bindings {
    private Bindings() {
    }

    /** Whether a bound value may hold float64 values (a float64-mode run of the interpreter) or must hold its dtype's. */
    public enum Float64 {
        /** A value holding float64 values is a {@link BindingProblem.Code#BINDING_DTYPE} problem. */
        REFUSED,
        /** A floating tensor may be bound to float64 values of its declared dtype. */
        ACCEPTED
    }

    /**
     * The problems of one run's inputs, parameters first (declaration order, then unknown names),
     * then unknown tensor names, then each declared tensor in declaration order; empty when the run can start.
     */
    public static List<BindingProblem> check(Program program, Map<String, Tensor> bound, Map<String, Long> params) {
        return check(program, bound, params, Float64.REFUSED);
    }

    /** {@link #check(Program, Map, Map)}, with float64 values {@code float64}. */
    public static List<BindingProblem> check(Program program, Map<String, Tensor> bound, Map<String, Long> params, Float64 float64) {
        List<BindingProblem> problems = new ArrayList<>(ParamCheck.problems(program, params));
        Map<String, TensorDecl> decls = program.tensorsByName();
        for (Map.Entry<String, Tensor> e : bound.entrySet()) {
            if (!decls.containsKey(e.getKey())) {
                problems.add(new BindingProblem(BindingProblem.Code.BINDING_UNKNOWN, "/tensors", e.getKey(), null,
                        e.getValue() == null ? null : describe(e.getValue()),
                        "A value was bound to '" + e.getKey() + "', which is not a tensor of the program."));
            }
        }
        for (TensorDecl d : decls.values()) { // a repeated name is the validator's finding: its first declaration counts
            Tensor t = bound.get(d.name());
            String field = "/tensors/" + d.name();
            if (t == null) {
                if (d.role().isBoundBeforeRun()) {
                    problems.add(new BindingProblem(BindingProblem.Code.MISSING_INPUT, field, d.name(), d.dtype() + d.shape().toString(), null,
                            "Tensor '" + d.name() + "' (" + d.role().jsonName() + ") has no bound value."));
                }
            } else if (t.dtype() != d.dtype() || (t.isFloat64() && float64 == Float64.REFUSED)) {
                String found = t.dtype() + (t.isFloat64() ? " (float64 mode)" : "");
                problems.add(new BindingProblem(BindingProblem.Code.BINDING_DTYPE, field, d.name(), d.dtype().toString(), found,
                        "Tensor '" + d.name() + "' is declared " + d.dtype() + " but the bound value is " + found + "."));
            } else if (!t.shape().equals(d.shape())) {
                problems.add(new BindingProblem(BindingProblem.Code.BINDING_SHAPE, field, d.name(), d.shape().toString(), t.shape().toString(),
                        "Tensor '" + d.name() + "' is declared " + d.shape() + " but the bound value is " + t.shape() + "."));
            }
        }
        return problems;
    }

    /** {@link #check(Program, Map, Map, Float64)} as a backend's faults before any stage runs. */
    public static List<Diagnostic> faults(Program program, Map<String, Tensor> bound, Map<String, Long> params, Float64 float64) {
        return check(program, bound, params, float64).stream().map(BindingProblem::toDiagnostic).toList();
    }

    /** The problems' messages joined into one line, for a refusal that is reported as one sentence or more. */
    public static String describe(List<BindingProblem> problems) {
        StringBuilder msg = new StringBuilder();
        for (BindingProblem p : problems) {
            msg.append(msg.isEmpty() ? "" : " ").append(p.message());
        }
        return msg.toString();
    }

    private static String describe(Tensor t) {
        return t.dtype() + t.shape().toString() + (t.isFloat64() ? " (float64 mode)" : "");
    }
}
