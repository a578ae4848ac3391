package org.stagecheck.cuda;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.stagecheck.backend.Bindings;
import org.stagecheck.backend.Prepared;
import org.stagecheck.backend.RunResult;
import org.stagecheck.cuda.runtime.GraphCounters;
import org.stagecheck.cuda.runtime.LaunchException;
import org.stagecheck.cuda.runtime.ProgramRunner;
import org.stagecheck.cuda.runtime.StepRequest;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.tensor.Tensor;

/**
 * A program kept on the device across runs (decode steps): memory allocated once, graphs
 * captured on the first step and replayed after (with {@link CudaOptions#graphs()}). Every run
 * returns a {@link RunResult} as {@link CudaBackend#run} does; nothing throws for bad bindings or
 * device errors, which are diagnostics naming the stage. The CUDA backend's {@link Prepared}: made
 * by {@link CudaBackend#prepare}, which never throws either; a program it could not set up (the
 * validator's findings, a lowering, compiler or driver failure) gives a session whose
 * {@link #refusal()} holds the finding and whose every run answers with it.
 */
public final class CudaSession implements Prepared {
    private final Program program;
    private final CudaModule module;
    private final ProgramRunner runner;
    private final boolean graphs;
    private final boolean ownsModule;
    private final List<Diagnostic> refusal;

    CudaSession(Program program, CudaModule module, int index, boolean graphs, boolean ownsModule) throws CudaSetupException {
        this.program = program;
        this.module = module;
        this.runner = module.newRunner(index);
        this.graphs = graphs;
        this.ownsModule = ownsModule;
        this.refusal = List.of();
    }

    /** A session that runs nothing: every step answers with {@code refusal}. */
    private CudaSession(Program program, List<Diagnostic> refusal) {
        this.program = program;
        this.module = null;
        this.runner = null;
        this.graphs = false;
        this.ownsModule = false;
        this.refusal = List.copyOf(refusal);
    }

    static CudaSession refused(Program program, List<Diagnostic> refusal) {
        return new CudaSession(program, refusal);
    }

    /**
     * A session of program {@code index} of a shared module (which the caller closes), with its
     * own device memory, in graph mode as the module's options say.
     */
    public static CudaSession of(CudaModule module, int index) throws CudaSetupException {
        return of(module, index, module.options().graphs());
    }

    /** As {@link #of(CudaModule, int)}, choosing graph mode. */
    public static CudaSession of(CudaModule module, int index, boolean graphs) throws CudaSetupException {
        return new CudaSession(module.lowered().get(index).program(), module, index, graphs, false);
    }

    @Override
    public Program program() {
        return program;
    }

    @Override
    public List<Diagnostic> refusal() {
        return refusal;
    }

    /** One run as {@link #step}; donation is ignored (device memory is the session's own, bound tensors are copied in). */
    @Override
    public RunResult run(Map<String, Tensor> bound, Map<String, Long> params, boolean trace, Set<String> donated) {
        return step(bound, params, trace);
    }

    /**
     * One run: {@code trace} keeps every stage's outputs (always eager: replays show only final
     * buffers). Every DRAM tensor comes back; only bound tensors the device does not already hold
     * are uploaded (see {@link ProgramRunner#step(Map, Map, StepRequest)}).
     */
    public RunResult step(Map<String, Tensor> bound, Map<String, Long> params, boolean trace) {
        return step(bound, params, StepRequest.of(trace, graphs && !trace));
    }

    /**
     * One run as {@code how} says: which tensors come back, whether to synchronise after each
     * stage (so a kernel fault the driver reports late names its stage), graphs (used only when
     * the session is in graph mode).
     */
    public RunResult step(Map<String, Tensor> bound, Map<String, Long> params, StepRequest how) {
        if (!refusal.isEmpty()) {
            return new RunResult(Map.of(), Map.of(), refusal, null);
        }
        List<Diagnostic> faults = Bindings.faults(program, bound, params, Bindings.Float64.REFUSED);
        if (!faults.isEmpty()) {
            return new RunResult(Map.of(), Map.of(), faults, null);
        }
        try {
            return runner.step(bound, params, new StepRequest(how.trace(), how.graphs() && graphs, how.syncEachStage(), how.fetch()));
        } catch (LaunchException e) {
            int i = e.stageIndex();
            Diagnostic d = i < 0
                    ? Diagnostic.atField(e.errorName(), "/", e.getMessage())
                    : Diagnostic.atStage(e.errorName(), i, program.stages().get(i).id(), "/stages/" + i, null, e.getMessage());
            return new RunResult(Map.of(), Map.of(), List.of(d), i < 0 ? null : program.stages().get(i).id());
        }
    }

    public RunResult step(Map<String, Tensor> bound, Map<String, Long> params) {
        return step(bound, params, false);
    }

    /** Graph-mode counters so far (all zero for a refused session). */
    public GraphCounters counters() {
        return runner == null ? new GraphCounters(0, 0, 0, 0, 0, false, List.of()) : runner.counters();
    }

    /** Moves chip {@code chip}'s memory to a new address (graphs that baked the old one become stale). */
    public void reallocate(int chip) throws LaunchException {
        if (runner == null) {
            throw new LaunchException("SESSION_REFUSED", "the program was refused: " + refusal.getFirst().message());
        }
        runner.reallocate(chip);
    }

    /** The module (source, lowering) behind this session; null for a refused session. */
    public CudaModule module() {
        return module;
    }

    /** The runner (device memory and graph state) of this session's program; null for a refused session. */
    public ProgramRunner runner() {
        return runner;
    }

    @Override
    public void close() {
        if (ownsModule) {
            module.close();
        } else if (runner != null) {
            module.release(runner); // a session over a shared module frees its own runner now
        }
    }
}
