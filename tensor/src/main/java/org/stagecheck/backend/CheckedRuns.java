package org.stagecheck.backend;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.tensor.Tensor;

/**
 * {@link Backend#prepare}'s default for a backend with nothing to prepare: a validated program
 * whose every run has its bindings checked ({@link Bindings}) before the backend's
 * {@link Backend#run(Program, Map, Map, boolean)} sees them. Donation is a permission the backend
 * does not take here.
 */
final class CheckedRuns implements Prepared {
    private final Backend backend;
    private final Program program;

    CheckedRuns(Backend backend, Program program) {
        this.backend = backend;
        this.program = program;
    }

    @Override
    public Program program() {
        return program;
    }

    @Override
    public List<Diagnostic> refusal() {
        return List.of();
    }

    @Override
    public RunResult run(Map<String, Tensor> bound, Map<String, Long> params, boolean trace, Set<String> donated) {
        List<Diagnostic> bad = Bindings.faults(program, bound, params, Bindings.Float64.REFUSED);
        if (!bad.isEmpty()) {
            return new RunResult(Map.of(), Map.of(), bad, null);
        }
        return backend.run(program, bound, params, trace);
    }

    @Override
    public void close() {
    }
}
