package org.stagecheck.golden.debug;

import java.util.List;

import org.stagecheck.golden.compare.Policy;

/**
 * The outcome of localising a mismatch (docs/debugging.md).
 *
 * @param mode       how it was localised
 * @param program    the program's name
 * @param policy     the policy values were judged by
 * @param stages     one verdict per stage, in reference order
 * @param tensors    the DRAM tensors both sides recorded, judged after the run
 * @param divergence where the fault is, or null when everything recorded agrees
 * @param threeWay   rounding or bug, for a divergence pinned to a stage; null otherwise or when
 *                   its inputs cannot be had (the reason is in {@code notes})
 * @param backendRuns how many times the backend was run (bisection only; 0 otherwise)
 * @param notes      anything the reader should know (a masked divergence, an unavailable three-way)
 */
public record DiffResult(Mode mode, String program, Policy policy, List<StageVerdict> stages, List<TensorVerdict> tensors,
                         Divergence divergence, ThreeWay threeWay, int backendRuns, List<String> notes) {
    public DiffResult {
        stages = List.copyOf(stages);
        tensors = List.copyOf(tensors);
        notes = List.copyOf(notes);
    }

    public enum Mode {
        /** Two traces compared stage by stage ({@link TraceDiff}). */
        TRACES,
        /** The backend's recorded values substituted into the reference run ({@link Replay}). */
        REPLAY,
        /** The backend re-run on prefixes of the program, reading only the tensors it writes ({@link CutBisect}). */
        BISECT;

        public String words() {
            return switch (this) {
                case TRACES -> "traces";
                case REPLAY -> "replay";
                case BISECT -> "bisect";
            };
        }
    }

    /** One DRAM tensor judged after the run. */
    public record TensorVerdict(String tensor, org.stagecheck.golden.compare.Comparison comparison) {}

    /** Whether everything recorded agrees. */
    public boolean agrees() {
        return divergence == null;
    }

    /** The command-line exit code: 0 when everything agrees, 1 when a divergence was found. */
    public int exitCode() {
        return agrees() ? 0 : 1;
    }
}
