package org.stagecheck.verifier.soundness;

import java.util.LinkedHashMap;
import java.util.Map;
import org.stagecheck.backend.RunResult;
import org.stagecheck.tensor.Tensor;

/**
 * Compares named tensors of a run with the unsplit reference run. Floats are compared with a
 * tolerance relative to {@code max(1, max |reference|)} over every compared tensor; integers
 * (token ids) are compared the same way, exactly when they agree.
 */
public final class Compare {

    /**
     * @param reference the unsplit run (must have completed)
     * @param run       the run to judge
     * @param pairs     reference tensor name to the run's tensor holding the same value
     * @param relTol    the tolerance, relative to the reference's scale
     */
    public static Outcome outputs(RunResult reference, RunResult run, Map<String, String> pairs, double relTol) {
        if (!reference.ok()) {
            throw new IllegalStateException("the reference run faulted: " + reference.faults());
        }
        Map<String, Tensor> expected = new LinkedHashMap<>();
        pairs.forEach((ref, got) -> expected.put(got, reference.tensor(ref)));
        return tensors(expected, run, relTol);
    }

    /**
     * @param expected the run's tensor name to the value it must hold (cut from the reference run)
     * @param run      the run to judge
     * @param relTol   the tolerance, relative to {@code max(1, max |expected|)}
     */
    public static Outcome tensors(Map<String, Tensor> expected, RunResult run, double relTol) {
        if (!run.ok()) {
            var f = run.faults().getFirst();
            return new Outcome(Outcome.Kind.FAULTS, Double.NaN, 1, f.code() + " at " + run.stoppedAtStage() + ": " + f.message());
        }
        double scale = 1;
        double worst = 0;
        String where = "no difference";
        for (var e : expected.entrySet()) {
            Tensor ref = e.getValue();
            Tensor got = run.tensor(e.getKey());
            if (got == null || !got.shape().equals(ref.shape())) {
                return new Outcome(Outcome.Kind.DIFFERS, Double.POSITIVE_INFINITY, scale,
                        e.getKey() + " is " + (got == null ? "missing" : got.shape()) + ", the reference " + ref.shape());
            }
            for (long i = 0; i < ref.size(); i++) {
                double r = ref.getDouble(i);
                double g = got.getDouble(i);
                if (Double.isFinite(r)) {
                    scale = Math.max(scale, Math.abs(r));
                }
                double d = Double.compare(r, g) == 0 ? 0 : Math.abs(r - g);
                if (Double.isNaN(d)) {
                    d = Double.POSITIVE_INFINITY; // NaN or an infinity on one side only
                }
                if (d > worst) {
                    worst = d;
                    where = e.getKey() + "[" + i + "]: " + g + " vs " + r;
                }
            }
        }
        Outcome.Kind kind = worst > relTol * scale ? Outcome.Kind.DIFFERS : Outcome.Kind.AGREES;
        return new Outcome(kind, worst, scale, where);
    }

    private Compare() {}
}
