package org.stagecheck.backend;

import java.util.List;
import java.util.Map;

import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.tensor.Tensor;

/**
 * One implementation of the semantics of stage programs (brief, "Modules"): the reference
 * interpreter, the CUDA backend (on a GPU or in host emulation), or a user's own. Golden checks,
 * the laws, the conformance suite and the command line take a {@code Backend}, so every
 * implementation is held to the same contract. Backends are found by name through
 * {@link Backends}.
 *
 * <p>The contract: never throw for a bad program or bad bindings (those are faults in the
 * {@link RunResult}, each naming the stage); a program the structural validator rejects is
 * refused with the validator's findings ({@link Validation}), unchanged, before anything runs,
 * so backends answer a bad program alike (the interpreter, the CUDA backend and {@link #prepare}'s
 * default all do, once per prepare); bound tensors are not mutated; a backend
 * documents where its numerics may differ from the reference and by how much.
 */
public interface Backend {
    /** A short name for reports and the command line, e.g. {@code interp} or {@code cuda-emu}. */
    String name();

    /**
     * Runs {@code program} once.
     *
     * @param bound  values for tensors of role input, weight and state (by tensor name); an output
     *               or scratch tensor may be bound too (its initial contents), otherwise it starts zeroed
     * @param params a value for every program parameter
     * @param trace  whether to keep every stage's outputs in {@link RunResult#trace()}
     */
    RunResult run(Program program, Map<String, Tensor> bound, Map<String, Long> params, boolean trace);

    /**
     * {@code program} made ready to run many times (see {@link Prepared}); the caller closes it.
     * Never throws for a bad program: one the validator rejects gives a
     * {@link Prepared#refusal() refused} prepared program with the validator's findings. The
     * interpreter and the CUDA backend do the program's work here once; this default, for a
     * backend with nothing to prepare, validates once, checks each run's bindings
     * ({@link Bindings}) and hands every run that passes to {@link #run(Program, Map, Map, boolean)},
     * so a backend that implements only {@code run} sees well-formed programs and fitting inputs.
     */
    default Prepared prepare(Program program) {
        List<Diagnostic> invalid = Validation.findings(program);
        return invalid.isEmpty() ? new CheckedRuns(this, program) : Prepared.refused(program, invalid);
    }

    /**
     * Runs {@code program} once through the seam: {@link #prepare} (validation included), one run,
     * close. What the library's tools (golden checks, the conformance suite, the laws, the
     * minimiser's oracles, the facade) call, so every backend, a user's own included, answers a
     * bad program or bad bindings with the same findings.
     */
    default RunResult runChecked(Program program, Map<String, Tensor> bound, Map<String, Long> params, boolean trace) {
        try (Prepared prepared = prepare(program)) {
            return prepared.run(bound, params, trace);
        }
    }

    /** {@link #run(Program, Map, Map, boolean)} without a trace (unless the backend was configured to trace). */
    default RunResult run(Program program, Map<String, Tensor> bound, Map<String, Long> params) {
        return run(program, bound, params, false);
    }
}
