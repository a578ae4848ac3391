package org.stagecheck.cuda;

import java.util.ArrayList;
import java.util.List;

import org.stagecheck.backend.FaultCode;
import org.stagecheck.cuda.compile.CompileException;
import org.stagecheck.cuda.lower.CudaSource;
import org.stagecheck.cuda.lower.Kernels;
import org.stagecheck.cuda.lower.LoweredProgram;
import org.stagecheck.cuda.lower.LoweringException;
import org.stagecheck.cuda.lower.ProgramLowering;
import org.stagecheck.cuda.runtime.LaunchException;
import org.stagecheck.cuda.runtime.Launcher;
import org.stagecheck.cuda.runtime.LauncherFactory;
import org.stagecheck.cuda.runtime.ProgramRunner;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Program;

/**
 * One compiled unit of one or more programs, loaded on a launcher: the lowering of each program,
 * the unit's source, and a {@link ProgramRunner} per program (its memory on the launcher). Many
 * programs in one unit cost one compile, which is how the tests keep CI time down.
 */
public final class CudaModule implements AutoCloseable {
    private final List<LoweredProgram> lowered;
    private final CudaSource source;
    private final Launcher launcher;
    private final CudaOptions options;
    private final List<ProgramRunner> runners = new ArrayList<>();

    private CudaModule(List<LoweredProgram> lowered, CudaSource source, Launcher launcher, CudaOptions options) {
        this.lowered = lowered;
        this.source = source;
        this.launcher = launcher;
        this.options = options;
    }

    /** The exact lowering of {@code programs} (validated by the caller) into one source; no compiler runs. */
    public static Lowered lower(List<Program> programs) throws CudaSetupException {
        return lower(programs, Kernels.EXACT);
    }

    /** The lowering of {@code programs} (validated by the caller) to {@code mode}'s kernels, in one source; no compiler runs. */
    public static Lowered lower(List<Program> programs, Kernels mode) throws CudaSetupException {
        List<LoweredProgram> out = new ArrayList<>();
        for (int i = 0; i < programs.size(); i++) {
            try {
                out.add(ProgramLowering.lower(programs.get(i), programs.size() == 1 ? "" : "p" + i + "_", mode));
            } catch (LoweringException | StackOverflowError e) {
                String why = e instanceof StackOverflowError ? "an expression nests too deeply to lower" : e.getMessage();
                throw new CudaSetupException(FaultCode.CUDA_LOWERING.atField("/stages",
                        "The program '" + programs.get(i).name() + "' could not be lowered to CUDA C: " + why + "."));
            }
        }
        return new Lowered(out, CudaSource.of(out));
    }

    /** Lowered programs and their unit's source. */
    public record Lowered(List<LoweredProgram> programs, CudaSource source) {}

    /** Lowers, compiles (cached) and loads {@code programs}, which must be valid. */
    public static CudaModule build(List<Program> programs, CudaOptions options, LauncherFactory factory) throws CudaSetupException {
        return build(lower(programs, options.kernels()), options, factory);
    }

    /**
     * Compiles and loads an already lowered unit, whose source a person may have edited (a
     * debugging experiment, or a test planting a bug): the kernels must keep their names.
     */
    public static CudaModule build(Lowered l, CudaOptions options, LauncherFactory factory) throws CudaSetupException {
        try {
            Launcher launcher = factory.open(l.source(), options);
            return new CudaModule(l.programs(), l.source(), launcher, options);
        } catch (CompileException e) {
            throw new CudaSetupException(FaultCode.CUDA_COMPILE.atField("/stages", e.getMessage()));
        } catch (LaunchException e) {
            throw new CudaSetupException(Diagnostic.atField(e.errorName(), "/stages", e.getMessage()));
        }
    }

    public CudaSource source() {
        return source;
    }

    public List<LoweredProgram> lowered() {
        return lowered;
    }

    public CudaOptions options() {
        return options;
    }

    /** A new runner of program {@code i}: its own device memory and graph state, released with the module. */
    public ProgramRunner newRunner(int i) throws CudaSetupException {
        int base = 0;
        for (int p = 0; p < i; p++) {
            base += lowered.get(p).kernels().size();
        }
        try {
            ProgramRunner r = new ProgramRunner(launcher, lowered.get(i), base, options.segmentStages());
            runners.add(r);
            return r;
        } catch (LaunchException e) {
            throw new CudaSetupException(Diagnostic.atField(e.errorName(), "/", e.getMessage()));
        }
    }

    /** Frees {@code r}'s device memory and graphs now, not with the module (a session over a shared module closing). */
    public void release(ProgramRunner r) {
        if (runners.remove(r)) {
            r.close();
        }
    }

    public Launcher launcher() {
        return launcher;
    }

    @Override
    public void close() {
        for (ProgramRunner r : runners) {
            r.close();
        }
        launcher.close();
    }
}
