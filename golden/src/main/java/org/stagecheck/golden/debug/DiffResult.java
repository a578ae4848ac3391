package org.stagecheck.golden.debug;

import java.util.List;

import org.stagecheck.tensor.Tensor;

/**
 * The outcome of localising a mismatch (docs/debugging.md).
 *
 * @param mode       how it was localised
 * @param program    the program's name
 * @param judge      how stage values were judged ({@link Judge}: stage-derived, or a value policy)
 * @param stages     one verdict per stage, in reference order
 * @param tensors    the DRAM tensors both sides recorded, judged after the run
 * @param divergence where the fault is, or null when everything recorded agrees
 * @param threeWay   rounding or bug, for a divergence pinned to a stage; null otherwise or when
 *                   its inputs cannot be had (the reason is in {@code notes})
 * @param backendRuns how many times the backend was run (bisection only; 0 otherwise)
 * @param notes      anything the reader should know (a masked divergence, an unavailable three-way)
 * @param divergentValues both sides' values of the divergent stage's outputs, for reports; null
 *                   when no stage diverges
 */
public record DiffResult(Mode mode, String program, Judge judge, List<StageVerdict> stages, List<TensorVerdict> tensors,
                         Divergence divergence, ThreeWay threeWay, int backendRuns, List<String> notes, StageValues divergentValues) {
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

    /**
     * The output ports of one stage, in port order: buffer names, the expected values and the
     * backend's. Under a value policy the expected values are the reference's f32 ones and
     * {@code bounds} is null; under {@link Judge.StageDerived} they are the stage's float64 values
     * on the backend's inputs (float64-mode tensors) and {@code bounds} their derived bounds.
     */
    public record StageValues(List<String> buffers, List<Tensor> reference, List<Tensor> backend, List<Tensor> bounds) {
        public StageValues {
            buffers = List.copyOf(buffers);
            reference = List.copyOf(reference);
            backend = List.copyOf(backend);
            bounds = bounds == null ? null : List.copyOf(bounds);
        }

        /** Values judged by a value policy: no bounds. */
        public StageValues(List<String> buffers, List<Tensor> reference, List<Tensor> backend) {
            this(buffers, reference, backend, null);
        }
    }

    /** One DRAM tensor judged after the run. */
    public record TensorVerdict(String tensor, org.stagecheck.tensor.compare.Comparison comparison) {}

    /** Whether everything recorded agrees. */
    public boolean agrees() {
        return divergence == null;
    }

    /** The command-line exit code: 0 when everything agrees, 1 when a divergence was found. */
    public int exitCode() {
        return agrees() ? 0 : 1;
    }
}
