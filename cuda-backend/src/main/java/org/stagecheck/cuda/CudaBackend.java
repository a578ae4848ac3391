package org.stagecheck.cuda;

import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.stagecheck.backend.Bindings;
import org.stagecheck.backend.Validation;
import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.cuda.runtime.LauncherFactory;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.tensor.Tensor;

/**
 * The thin CUDA backend (brief, "CUDA backend"; docs/cuda.md): each stage lowered to one plain
 * CUDA C kernel, run on a GPU through the driver API ({@code cuda}), on the host in emulation
 * ({@code cuda-emu}), or through the driver API on the fake driver ({@code cuda-fake}): a second
 * implementation of the semantics that the differential tests hold to the reference. A program is
 * validated before anything native happens; an invalid one, bad bindings, a compiler or driver
 * failure, and every data fault are diagnostics in the {@link RunResult}, never exceptions.
 */
public final class CudaBackend implements Backend {
    private final CudaOptions options;
    private final LauncherFactory factory;

    public CudaBackend(CudaOptions options) {
        this(options, switch (options.target()) {
            case DEVICE -> LauncherFactory.device();
            case EMULATION -> LauncherFactory.emulation();
            case FAKE_DRIVER -> LauncherFactory.fakeDriver();
        });
    }

    /** With a launcher factory of the caller's (a test's fault injection, a custom device). */
    public CudaBackend(CudaOptions options, LauncherFactory factory) {
        this.options = Objects.requireNonNull(options, "options");
        this.factory = Objects.requireNonNull(factory, "factory");
    }

    @Override
    public String name() {
        return options.backendName();
    }

    public CudaOptions options() {
        return options;
    }

    /** What compiles a source for this backend's target and opens its launcher. */
    public LauncherFactory factory() {
        return factory;
    }

    @Override
    public RunResult run(Program program, Map<String, Tensor> bound, Map<String, Long> params, boolean trace) {
        List<Diagnostic> invalid = Validation.findings(program);
        if (!invalid.isEmpty()) {
            return new RunResult(Map.of(), Map.of(), invalid, null);
        }
        List<Diagnostic> faults = Bindings.faults(program, bound, params, Bindings.Float64.REFUSED);
        if (!faults.isEmpty()) {
            return new RunResult(Map.of(), Map.of(), faults, null);
        }
        try (CudaSession s = setUp(program)) {
            return s.step(bound, params, trace);
        }
    }

    /**
     * A session of {@code program} for several runs (decode steps with graphs). The program is
     * validated first: an invalid one is refused with the validator's findings, and a program
     * that cannot be lowered, compiled or loaded with that failure; a refused session runs
     * nothing (see {@link CudaSession#refusal()}).
     */
    @Override
    public CudaSession prepare(Program program) {
        List<Diagnostic> invalid = Validation.findings(program);
        if (!invalid.isEmpty()) {
            return CudaSession.refused(program, invalid);
        }
        return setUp(program);
    }

    /** The session of a valid program, or one refused with the setup's failure. */
    private CudaSession setUp(Program program) {
        CudaModule module;
        try {
            module = CudaModule.build(List.of(program), options, factory);
        } catch (CudaSetupException e) {
            return CudaSession.refused(program, List.of(e.diagnostic()));
        }
        try {
            return new CudaSession(program, module, 0, options.graphs(), true);
        } catch (CudaSetupException e) {
            module.close();
            return CudaSession.refused(program, List.of(e.diagnostic()));
        }
    }

    /**
     * One module for many programs (one compile); each must be valid, else the first finding is
     * refused. Sessions come from {@link CudaSession#of}.
     */
    public CudaModule openAll(List<Program> programs) throws CudaSetupException {
        for (Program p : programs) {
            List<Diagnostic> invalid = Validation.findings(p);
            if (!invalid.isEmpty()) {
                throw new CudaSetupException(invalid.getFirst());
            }
        }
        return CudaModule.build(programs, options, factory);
    }
}
