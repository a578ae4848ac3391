package org.stagecheck.backend;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.tensor.Tensor;

/**
 * A program made ready by one {@link Backend} to run many times (a decode step token after token,
 * a property test's tries): the work that depends only on the program (validation, lowering,
 * compilation, device memory, index tables) is done once by {@link Backend#prepare}, and each
 * run pays only for the stages.
 *
 * <p>The contract is {@link Backend}'s: a run never throws for bad bindings or a data fault.
 * A program the backend refused while preparing (the validator's findings, a compiler failure)
 * gives a prepared program whose {@link #refusal()} holds the findings and whose every run
 * answers with them, running nothing.
 */
public interface Prepared extends AutoCloseable {
    /** The program this was prepared from. */
    Program program();

    /** Why the backend refused the program while preparing it; empty when it is ready to run. */
    List<Diagnostic> refusal();

    /**
     * One run.
     *
     * @param bound   values for tensors of role input, weight and state (by tensor name); an output
     *                or scratch tensor may be bound too (its initial contents), otherwise it starts zeroed
     * @param params  a value for every program parameter
     * @param trace   whether to keep every stage's outputs in {@link RunResult#trace()}
     * @param donated names of bound tensors handed over to the run, which may update them in place
     *                (a decode loop's KV cache, JAX's donated arguments): the caller reads the
     *                result's tensors afterwards, never the donated objects. The values computed
     *                are the same as without donation; a backend may ignore the permission.
     */
    RunResult run(Map<String, Tensor> bound, Map<String, Long> params, boolean trace, Set<String> donated);

    /** One run, donating nothing. */
    default RunResult run(Map<String, Tensor> bound, Map<String, Long> params, boolean trace) {
        return run(bound, params, trace, Set.of());
    }

    /** One run without a trace (unless the backend was configured to trace every run), donating nothing. */
    default RunResult run(Map<String, Tensor> bound, Map<String, Long> params) {
        return run(bound, params, false);
    }

    /** Releases what preparing held (device memory, a compiled module); never throws. */
    @Override
    void close();

    /** A prepared program refused with {@code findings}: every run answers with them and runs nothing. */
    static Prepared refused(Program program, List<Diagnostic> findings) {
        if (findings.isEmpty()) {
            throw new IllegalArgumentException("a refusal names at least one finding");
        }
        List<Diagnostic> copy = List.copyOf(findings);
        return new Prepared() {
            @Override
            public Program program() {
                return program;
            }

            @Override
            public List<Diagnostic> refusal() {
                return copy;
            }

            @Override
            public RunResult run(Map<String, Tensor> bound, Map<String, Long> params, boolean trace, Set<String> donated) {
                return new RunResult(Map.of(), Map.of(), copy, null);
            }

            @Override
            public void close() {
            }
        };
    }
}
