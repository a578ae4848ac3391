package org.stagecheck.author;

/**
 * How the rotary inverse frequencies are rescaled for long contexts. Only the schemes of the
 * supported families are here; a checkpoint asking for another is refused by name.
 */
public sealed interface RopeScaling {
    /** No rescaling. */
    RopeScaling NONE = new None();

    record None() implements RopeScaling {}

    /**
     * Llama 3.1's scheme ({@code rope_type: llama3}): with {@code old = originalMaxPositions} and
     * {@code wavelen = 2 pi / inv_freq}, a wavelength above {@code old / lowFreqFactor} divides
     * the frequency by {@code factor}, one below {@code old / highFreqFactor} keeps it, and one
     * between blends the two with {@code s = (old / wavelen - lowFreqFactor) / (highFreqFactor -
     * lowFreqFactor)}: {@code (1 - s) inv / factor + s inv}.
     */
    record Llama3(double factor, double lowFreqFactor, double highFreqFactor, int originalMaxPositions)
            implements RopeScaling {
        public Llama3 {
            if (!(factor > 0) || !(lowFreqFactor > 0) || !(highFreqFactor > lowFreqFactor)
                    || Double.isInfinite(factor) || Double.isInfinite(highFreqFactor) || originalMaxPositions < 1) {
                throw new IllegalArgumentException("llama3 rope scaling needs factor > 0, 0 < low_freq_factor < high_freq_factor"
                        + " and original_max_position_embeddings >= 1, not factor " + factor + ", low " + lowFreqFactor
                        + ", high " + highFreqFactor + ", original " + originalMaxPositions);
            }
        }
    }
}
