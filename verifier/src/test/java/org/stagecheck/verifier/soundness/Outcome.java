package org.stagecheck.verifier.soundness;

import java.util.Locale;

/**
 * How a run of a (split, possibly mutated) program compared with the unsplit reference run on the
 * same inputs (docs/verifier.md, "Soundness against the evaluator").
 *
 * @param kind       agrees within the tolerance, differs beyond it, or the run faulted
 * @param maxAbsDiff the largest |reference - run| over the compared elements (infinite when a
 *                   value is NaN on one side only); NaN when the run faulted
 * @param scale      {@code max(1, max |reference|)}: the tolerance is relative to it
 * @param detail     where the largest difference is, or the fault's code and message
 */
public record Outcome(Kind kind, double maxAbsDiff, double scale, String detail) {

    public enum Kind { AGREES, DIFFERS, FAULTS }

    /** The difference relative to the reference's scale. */
    public double relative() {
        return maxAbsDiff / scale;
    }

    /** Whether the run is evidence of a real bug: its outputs differ, or the evaluator faulted. */
    public boolean isRealBug() {
        return kind != Kind.AGREES;
    }

    @Override
    public String toString() {
        return switch (kind) {
            case FAULTS -> "faults: " + detail;
            case AGREES, DIFFERS -> String.format(Locale.ROOT, "%s: max |diff| %.3g, relative %.3g (%s)",
                    kind.name().toLowerCase(Locale.ROOT), maxAbsDiff, relative(), detail);
        };
    }
}
