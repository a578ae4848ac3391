package org.stagecheck.author.synth;

import org.stagecheck.author.Family;

/** The checkpoint families a synthetic model can be written as: {@code architectures[0]} and {@code model_type}. */
public enum SynthFamily {
    LLAMA(Family.LLAMA),
    MISTRAL(Family.MISTRAL),
    QWEN2(Family.QWEN2),
    QWEN3(Family.QWEN3),
    /** Qwen3's attention (q/k norms) with sparse mixture-of-experts MLPs. */
    QWEN3_MOE(Family.QWEN3_MOE),
    /** Qwen2's attention (q/k/v biases) with sparse MLPs plus a sigmoid-gated shared expert. */
    QWEN2_MOE(Family.QWEN2_MOE),
    /** Mistral's attention with sparse MLPs on every layer, always renormalised, named {@code block_sparse_moe}. */
    MIXTRAL(Family.MIXTRAL);

    /** The family the reader dispatches to: its names are the ones written, so the two cannot drift apart. */
    private final Family family;

    SynthFamily(Family family) {
        this.family = family;
    }

    public String architecture() {
        return family.architecture();
    }

    public String modelType() {
        return family.jsonName();
    }

    /** Whether the family has mixture-of-experts layers (and so a {@link SyntheticMoe}). */
    public boolean isMoe() {
        return switch (this) {
            case LLAMA, MISTRAL, QWEN2, QWEN3 -> false;
            case QWEN3_MOE, QWEN2_MOE, MIXTRAL -> true;
        };
    }
}
