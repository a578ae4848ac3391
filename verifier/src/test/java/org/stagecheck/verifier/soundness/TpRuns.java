package org.stagecheck.verifier.soundness;

import java.util.Map;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.backend.RunResult;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.verifier.corpus.TpBinding;
import org.stagecheck.verifier.corpus.TpCase;
import org.stagecheck.verifier.corpus.TpSpec;

/**
 * Runs a {@link TpCase} and its unsplit reference on the evaluator with the same deterministic
 * inputs and compares every chip's {@code y.c} with the unsplit {@code y}.
 *
 * <p>Tolerance {@value #RELATIVE_TOLERANCE} of {@code max(1, max |y|)}: the split changes only the
 * association of W2's contraction sum (the first matmul is column-parallel, so each of its
 * outputs is the same f32 fma chain over the same k order, bit for bit; the activation is
 * elementwise; the bias is added once after the reduce). The sum has at most 24 terms here,
 * each bounded by about 4/sqrt(f), so a re-association moves it by a few units of f32 roundoff
 * (2^-24) times the sum of |terms|: ~1e-6 absolute at the worst for these magnitudes. 1e-5 stays
 * well above that and far below any planted bug's effect (both measured and printed).
 */
public final class TpRuns {
    public static final double RELATIVE_TOLERANCE = 1e-5;

    private static final Interpreter INTERPRETER = new Interpreter(RunOptions.defaults().withThreads(1));

    /** Runs {@code c}'s program (split, mutated or not) and its unsplit reference on inputs from {@code inputSeed}. */
    public static Outcome run(TpCase c, long inputSeed) {
        TpSpec s = c.spec();
        Map<String, Tensor> logical = TpBinding.logical(s, inputSeed);
        RunResult reference = INTERPRETER.run(c.unsplit(), logical, Map.of());
        RunResult split = INTERPRETER.run(c.program(), TpBinding.split(s, c.program(), c.certificate(), logical), Map.of());
        return compareAll(reference, split, s.tp());
    }

    /** Whether the split agrees with its unsplit reference on the inputs of seeds 1 to 4 (the evaluator's verdict on it). */
    public static boolean agrees(TpCase c) {
        for (long in = 1; in <= 4; in++) {
            if (run(c, in).kind() != Outcome.Kind.AGREES) {
                return false;
            }
        }
        return true;
    }

    /** Every chip's y.c (each holds the whole result) against the unsplit y; the worst of them. */
    private static Outcome compareAll(RunResult reference, RunResult split, int tp) {
        Outcome worst = null;
        for (int chip = 0; chip < tp; chip++) {
            Outcome o = Compare.outputs(reference, split, Map.of("y", "y." + chip), RELATIVE_TOLERANCE);
            if (worst == null || o.kind() == Outcome.Kind.FAULTS || o.relative() > worst.relative()) {
                worst = o;
            }
            if (o.kind() == Outcome.Kind.FAULTS) {
                break;
            }
        }
        return worst;
    }

    private TpRuns() {}
}
