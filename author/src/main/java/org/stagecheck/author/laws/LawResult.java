package org.stagecheck.author.laws;

/**
 * The verdict of one law on one case (brief, "Cuts of a model": the laws are the gates).
 *
 * @param law         the law's name, e.g. {@code decode-composition}
 * @param holds       whether every compared float lies within {@code tolerance}, every integer
 *                    (token ids) is equal, and every run completed without a fault
 * @param maxAbsDiff  the largest absolute difference over all compared floats (NaN when a run failed)
 * @param tolerance   the bound the law promises: 0 for the bit-exact laws
 * @param explanation one line: what was compared and, when it fails, the first thing that differed
 */
public record LawResult(String law, boolean holds, double maxAbsDiff, double tolerance, String explanation) {

    /** Whether the two sides agreed bit for bit on every compared float. */
    public boolean bitExact() {
        return holds && maxAbsDiff == 0.0;
    }

    @Override
    public String toString() {
        return law + (holds ? " holds" : " FAILS") + " (max |diff| " + maxAbsDiff + ", tolerance " + tolerance + "): "
                + explanation;
    }
}
