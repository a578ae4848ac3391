package org.stagecheck.author.synth;

/**
 * Llama 3.1's {@code rope_type: "llama3"} frequency scaling: long wavelengths divided by
 * {@code factor}, short ones kept, the band between the two interpolated.
 */
public record Llama3RopeScaling(double factor, double lowFreqFactor, double highFreqFactor, int originalMaxPositionEmbeddings) {
    public Llama3RopeScaling {
        if (!(factor > 0) || !(lowFreqFactor > 0) || !(highFreqFactor > lowFreqFactor) || originalMaxPositionEmbeddings <= 0) {
            throw new IllegalArgumentException("llama3 rope scaling needs factor > 0, 0 < low_freq_factor < high_freq_factor and a positive"
                    + " original_max_position_embeddings, not factor " + factor + ", low " + lowFreqFactor + ", high " + highFreqFactor
                    + ", original " + originalMaxPositionEmbeddings);
        }
    }

    /** Llama 3.2 1B's values: factor 32, low 1, high 4, original 8192. */
    public static Llama3RopeScaling llama32() {
        return new Llama3RopeScaling(32.0, 1.0, 4.0, 8192);
    }
}
