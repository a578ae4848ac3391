package org.stagecheck.backend;

import java.util.Map;

import org.stagecheck.spec.ir.Program;
import org.stagecheck.tensor.Tensor;

/**
 * One implementation of the semantics of stage programs (brief, "Modules"): the reference
 * interpreter, the CUDA backend (on a GPU or in host emulation), or a user's own. Golden checks,
 * the laws, the conformance suite and the command line take a {@code Backend}, so every
 * implementation is held to the same contract.
 *
 * <p>The contract: never throw for a bad program or bad bindings (those are faults in the
 * {@link RunResult}, each naming the stage); bound tensors are not mutated; a backend documents
 * where its numerics may differ from the reference and by how much.
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

    /** {@link #run(Program, Map, Map, boolean)} without a trace. */
    default RunResult run(Program program, Map<String, Tensor> bound, Map<String, Long> params) {
        return run(program, bound, params, false);
    }
}
