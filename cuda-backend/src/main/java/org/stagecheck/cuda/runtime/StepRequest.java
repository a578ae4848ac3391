package org.stagecheck.cuda.runtime;

import java.util.Optional;
import java.util.Set;

/**
 * How one step of a {@link ProgramRunner} runs and what it brings back.
 *
 * @param trace          keep every stage's outputs (runs eagerly and synchronises after each stage)
 * @param graphs         replay captured segment graphs (ignored when tracing or synchronising per stage)
 * @param syncEachStage  wait for the device after each stage, so a fault inside a kernel that the
 *                       driver reports only at the next synchronisation names its stage (implied
 *                       by {@code trace}; runs eagerly)
 * @param fetch          the DRAM tensors to bring back; empty: every DRAM tensor (those the program
 *                       writes are downloaded, the others are the host copies already on the device)
 */
public record StepRequest(boolean trace, boolean graphs, boolean syncEachStage, Optional<Set<String>> fetch) {
    public StepRequest {
        fetch = fetch.map(Set::copyOf);
    }

    /** Every DRAM tensor back, as {@link org.stagecheck.backend.RunResult#tensors()} promises. */
    public static StepRequest of(boolean trace, boolean graphs) {
        return new StepRequest(trace, graphs, trace, Optional.empty());
    }

    /** The same request, synchronising after every stage (a debugging run). */
    public StepRequest syncingEachStage() {
        return new StepRequest(trace, graphs, true, fetch);
    }

    /** The same request, bringing back only {@code names} (outputs, the state a caller carries). */
    public StepRequest fetching(Set<String> names) {
        return new StepRequest(trace, graphs, syncEachStage, Optional.of(names));
    }

    /** Whether the step launches stage by stage with a wait after each. */
    boolean stageByStage() {
        return trace || syncEachStage;
    }

    boolean wants(String tensor) {
        return fetch.map(f -> f.contains(tensor)).orElse(true);
    }
}
