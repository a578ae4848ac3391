package org.stagecheck.golden.debug;

import java.util.Map;

import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.backend.MathMode;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.tensor.Tensor;

/**
 * The one call for a Java caller with a {@link Backend} in hand (a pass-testing kit, a backend's
 * own test suite): where does this backend's run of {@code program} first depart from the
 * reference, and is it rounding or a bug (docs/debugging.md). The backend is run once asking for
 * a trace; whatever stages it traces are replayed through the reference ({@link Replay}); when the
 * trace does not pin the fault to one stage (it traced nothing, or fused the culprit away), the
 * backend is re-run on prefixes of the program ({@link CutBisect}).
 */
public final class Mismatch {
    private Mismatch() {
    }

    /** As {@link #locate(Program, Map, Map, Backend, Judge, MathMode)} with a value policy. */
    public static DiffResult locate(Program program, Map<String, Tensor> bound, Map<String, Long> params, Backend backend,
                                    Policy policy, MathMode mode) throws DebugInputException {
        TraceDiff.requireComparable(policy);
        return locate(program, bound, params, backend, new Judge.ByPolicy(policy), mode);
    }

    /**
     * Replays what the backend traces; bisects when that does not pin the stage. Under the
     * stage-derived judgement a backend that traces nothing is bisected at once: its outputs alone
     * are judged only against the rounding of the whole run, which is loose at depth.
     */
    public static DiffResult locate(Program program, Map<String, Tensor> bound, Map<String, Long> params, Backend backend,
                                    Judge judge, MathMode mode) throws DebugInputException {
        RunResult run = backend.runChecked(program, bound, params, true);
        if (!run.ok() && run.stoppedAtStage() == null) {
            // no stage ran: the backend cannot run here (no driver, no device) or refused the program
            throw new DebugInputException("backend " + backend.name() + " could not run the program: " + run.faults().get(0).render());
        }
        boolean tracesNothing = run.trace().isEmpty() && judge instanceof Judge.StageDerived;
        if (run.ok() && !tracesNothing) {
            DiffResult replayed = Replay.replay(program, bound, params, StageTrace.of(program, run), judge, mode);
            if (replayed.agrees() || replayed.divergence().pinned()) {
                return replayed;
            }
        }
        return CutBisect.bisect(program, bound, params, backend, judge, mode);
    }
}
