package org.stagecheck.interp;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.interp.eval.Fault;
import org.stagecheck.interp.eval.Parallel;
import org.stagecheck.interp.eval.RunState;
import org.stagecheck.interp.eval.StageEvaluator;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.TensorDecl;

/**
 * The reference evaluator (brief, "Reference semantics"; docs/semantics.md): runs the stages of a
 * program in list order on the CPU, in pure Java. Never throws for a bad program or bad bindings:
 * those are faults in the {@link RunResult}, each naming the stage. The run stops at the first
 * stage fault. An instance holds only its options and may run many programs, one at a time or
 * concurrently.
 */
public final class Interpreter implements Backend {
    private final RunOptions options;

    public Interpreter(RunOptions options) {
        this.options = Objects.requireNonNull(options, "options");
    }

    @Override
    public String name() {
        return "interp";
    }

    /** Runs with this interpreter's options, except that {@code trace} replaces theirs. */
    @Override
    public RunResult run(Program program, Map<String, Tensor> bound, Map<String, Long> params, boolean trace) {
        return trace == options.trace() ? run(program, bound, params) : new Interpreter(options.withTrace(trace)).run(program, bound, params);
    }

    /**
     * Runs with this interpreter's options (its trace setting included).
     *
     * @param bound  values for tensors of role input, weight and state (by tensor name); an output
     *               or scratch tensor may be bound too (its initial contents), otherwise it starts zeroed
     * @param params a value for every program parameter
     */
    @Override
    public RunResult run(Program program, Map<String, Tensor> bound, Map<String, Long> params) {
        List<Diagnostic> faults = new ArrayList<>();
        checkParams(program, params, faults);
        checkBufferSizes(program, faults);
        Map<String, Tensor> initial = bindTensors(program, bound, faults);
        if (!faults.isEmpty()) {
            return new RunResult(initial, Map.of(), faults, null);
        }
        Map<String, List<Tensor>> trace = new LinkedHashMap<>();
        try (Parallel par = new Parallel(options.threads())) {
            RunState state = new RunState(program, options.precision(), par, params);
            for (Map.Entry<String, Tensor> e : initial.entrySet()) {
                if (e.getValue() == bound.get(e.getKey())) {
                    state.putSharedTensor(e.getKey(), e.getValue());
                } else {
                    state.putTensor(e.getKey(), e.getValue());
                }
            }
            List<Stage> stages = program.stages();
            for (int i = 0; i < stages.size(); i++) {
                Stage st = stages.get(i);
                try {
                    StageEvaluator.run(st, state);
                    List<Tensor> outs = new ArrayList<>();
                    for (String out : st.outs()) {
                        outs.add(state.read(out));
                    }
                    if (options.trace()) {
                        trace.put(st.id(), List.copyOf(outs));
                    }
                    if (options.stopAtNonFinite()) {
                        Diagnostic nf = NonFinite.check(i, st, outs, options.stopAt());
                        if (nf != null) {
                            return new RunResult(state.tensors(), trace, List.of(nf), st.id());
                        }
                    }
                } catch (Fault f) {
                    return new RunResult(state.tensors(), trace, List.of(diagnostic(i, st, f)), st.id());
                } catch (StackOverflowError e) {
                    // the one recursion of the evaluator is over the expression tree (Generic, Scalar, combine)
                    Diagnostic d = Diagnostic.atStage("EXPR_TOO_DEEP", i, st.id(), "/stages/" + i + "/kind", null,
                            "The expression of this stage nests too deeply for the evaluator's stack; run with a larger -Xss or flatten it.");
                    return new RunResult(state.tensors(), trace, List.of(d), st.id());
                } catch (OutOfMemoryError e) {
                    Diagnostic d = Diagnostic.atStage("OUT_OF_MEMORY", i, st.id(), "/stages/" + i, null,
                            "The Java heap ran out while evaluating this stage; run with a larger -Xmx or smaller shapes.");
                    return new RunResult(state.tensors(), trace, List.of(d), st.id());
                } catch (RuntimeException e) {
                    // a defect of the evaluator itself: still a diagnostic naming the stage, never a crash
                    Diagnostic d = Diagnostic.atStage("INTERNAL", i, st.id(), "/stages/" + i, null,
                            "The evaluator failed on this stage (" + e + "); this is a bug in stagecheck-interp.");
                    return new RunResult(state.tensors(), trace, List.of(d), st.id());
                }
            }
            return new RunResult(state.tensors(), trace, List.of(), null);
        }
    }

    private static Diagnostic diagnostic(int index, Stage st, Fault f) {
        String field = "/stages/" + index + (f.field() == null ? "" : "/" + f.field());
        return Diagnostic.atStage(f.code(), index, st.id(), field, f.buffer(), f.getMessage());
    }

    private static void checkParams(Program program, Map<String, Long> params, List<Diagnostic> faults) {
        Map<String, Param> declared = program.paramsByName();
        for (Param p : program.params()) {
            Long v = params.get(p.name());
            if (v == null) {
                faults.add(Diagnostic.atField("PARAM_UNBOUND", "/params/" + p.name(),
                        "Parameter '" + p.name() + "' has no value for this run."));
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
    }

    /**
     * Every buffer must fit one Java array, as the validator requires (SIZE_TOO_LARGE): checked
     * before any stage runs, so an oversized declaration is a fault naming it rather than an
     * evaluator failure in the stage that first writes it.
     */
    private static void checkBufferSizes(Program program, List<Diagnostic> faults) {
        for (BufferDecl b : program.buffers()) {
            long n;
            try {
                n = b.shape().elementCount();
            } catch (ArithmeticException e) {
                n = Long.MAX_VALUE;
            }
            if (n > Tensor.MAX_ELEMENTS) {
                faults.add(Diagnostic.atField("BUFFER_TOO_LARGE", "/buffers/" + b.name(), "Buffer '" + b.name() + "' of shape "
                        + b.shape() + " holds more than the " + Tensor.MAX_ELEMENTS + " elements one buffer may hold."));
            }
        }
    }

    /** Every DRAM tensor's initial value, from the bindings (shared, copied on write) or zeroed. */
    private Map<String, Tensor> bindTensors(Program program, Map<String, Tensor> bound, List<Diagnostic> faults) {
        Map<String, TensorDecl> decls = program.tensorsByName();
        Map<String, Tensor> out = new LinkedHashMap<>();
        for (String name : bound.keySet()) {
            if (!decls.containsKey(name)) {
                faults.add(Diagnostic.atField("BINDING_UNKNOWN", "/tensors",
                        "A value was bound to '" + name + "', which is not a tensor of the program."));
            }
        }
        boolean f64 = options.precision() == Precision.F64;
        for (TensorDecl d : decls.values()) {
            Tensor t = bound.get(d.name());
            String field = "/tensors/" + d.name();
            if (t == null) {
                if (d.role().isBoundBeforeRun()) {
                    faults.add(Diagnostic.atField("MISSING_INPUT", field,
                            "Tensor '" + d.name() + "' (" + d.role().jsonName() + ") has no bound value."));
                    continue;
                }
                try {
                    out.put(d.name(), f64 && d.dtype().isFloating() ? Tensor.zerosFloat64(d.dtype(), d.shape()) : Tensor.zeros(d.dtype(), d.shape()));
                } catch (IllegalArgumentException | ArithmeticException e) {
                    // ArithmeticException: the element count overflows even a long (eight huge axes)
                    faults.add(Diagnostic.atField("TENSOR_TOO_LARGE", field, "Tensor '" + d.name() + "' of shape " + d.shape()
                            + " holds more than the " + Tensor.MAX_ELEMENTS + " elements one tensor may hold."));
                }
                continue;
            }
            if (t.dtype() != d.dtype() || (t.isFloat64() && !f64)) {
                faults.add(Diagnostic.atField("BINDING_DTYPE", field, "Tensor '" + d.name() + "' is declared " + d.dtype()
                        + " but the bound value is " + t.dtype() + (t.isFloat64() ? " (float64 mode)" : "") + "."));
                continue;
            }
            if (!t.shape().equals(d.shape())) {
                faults.add(Diagnostic.atField("BINDING_SHAPE", field, "Tensor '" + d.name() + "' is declared " + d.shape()
                        + " but the bound value is " + t.shape() + "."));
                continue;
            }
            // the caller's tensor is shared until a store writes it (copy-on-write in RunState)
            out.put(d.name(), f64 && d.dtype().isFloating() && !t.isFloat64() ? Tensor.wrapDoubles(t.dtype(), t.shape(), t.toDoubles()) : t);
        }
        return out;
    }

}
