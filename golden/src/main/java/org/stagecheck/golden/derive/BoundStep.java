package org.stagecheck.golden.derive;

import org.stagecheck.backend.MathMode;
import java.util.List;
import java.util.Map;

import org.stagecheck.interp.StageFault;
import org.stagecheck.interp.Stepper;
import org.stagecheck.spec.ir.Stage;

/**
 * One stage of the derived bound on states the caller holds: the hook the stage-derived judgement
 * of {@code stagecheck diff} walks a run with (docs/debugging.md, "Beyond rounding"). The caller
 * owns two float64-mode {@link Stepper}s, {@code val} (true values) and {@code err} (their bounds,
 * laid out like the values; an i32 buffer holds the true integers), and may overwrite any buffer
 * between stages, for instance with a backend's recorded value and a bound of zero. The rules are
 * {@link DerivedBounds}' own, stage by stage; this class adds none.
 */
public final class BoundStep {
    private BoundStep() {
    }

    /**
     * Runs {@code stage} on {@code val} and bounds its outputs into {@code err}.
     *
     * @param warnings receives a line for each integer output another conforming evaluation may compute differently
     * @throws StageFault when the stage faults on these values
     */
    public static void step(Stage stage, Stepper val, Stepper err, Map<String, Long> params, MathMode mode, List<String> warnings)
            throws StageFault {
        DerivedBounds.step(stage, val, err, params, mode, warnings, true);
    }
}
