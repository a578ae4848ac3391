package org.stagecheck.backend;

import java.util.List;
import java.util.Map;

import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.diag.Diagnostic;

/**
 * The outcome of one run.
 *
 * @param tensors        every DRAM tensor after the run, by name (state updated in place, outputs written)
 * @param trace          stage id to its output ports' values in port order; empty unless tracing
 * @param faults         runtime faults; empty when the run completed
 * @param stoppedAtStage id of the stage at which the run stopped (fault or first NaN/Inf), or null
 */
public record RunResult(Map<String, Tensor> tensors, Map<String, List<Tensor>> trace,
                        List<Diagnostic> faults, String stoppedAtStage) {
    public RunResult {
        tensors = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(tensors));
        trace = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(trace));
        faults = List.copyOf(faults);
    }

    /** Whether the run completed without a fault. */
    public boolean ok() {
        return faults.isEmpty();
    }

    /** The runtime fault code of each fault, in order; null for a fault that has none (a validator finding, a binding fault, a driver error). */
    public List<FaultCode> faultCodes() {
        return faults.stream().map(FaultCode::of).toList();
    }

    /** The DRAM tensor {@code name} after the run, or null when there is none. */
    public Tensor tensor(String name) {
        return tensors.get(name);
    }
}
