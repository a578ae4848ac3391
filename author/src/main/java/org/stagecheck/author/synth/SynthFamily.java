package org.stagecheck.author.synth;

/** The checkpoint families a synthetic model can be written as: {@code architectures[0]} and {@code model_type}. */
public enum SynthFamily {
    LLAMA("LlamaForCausalLM", "llama"),
    MISTRAL("MistralForCausalLM", "mistral"),
    QWEN2("Qwen2ForCausalLM", "qwen2"),
    QWEN3("Qwen3ForCausalLM", "qwen3"),
    /** Qwen3's attention (q/k norms) with sparse mixture-of-experts MLPs. */
    QWEN3_MOE("Qwen3MoeForCausalLM", "qwen3_moe"),
    /** Qwen2's attention (q/k/v biases) with sparse MLPs plus a sigmoid-gated shared expert. */
    QWEN2_MOE("Qwen2MoeForCausalLM", "qwen2_moe"),
    /** Mistral's attention with sparse MLPs on every layer, always renormalised, named {@code block_sparse_moe}. */
    MIXTRAL("MixtralForCausalLM", "mixtral");

    private final String architecture;
    private final String modelType;

    SynthFamily(String architecture, String modelType) {
        this.architecture = architecture;
        this.modelType = modelType;
    }

    public String architecture() {
        return architecture;
    }

    public String modelType() {
        return modelType;
    }

    /** Whether the family has mixture-of-experts layers (and so a {@link SyntheticMoe}). */
    public boolean isMoe() {
        return switch (this) {
            case LLAMA, MISTRAL, QWEN2, QWEN3 -> false;
            case QWEN3_MOE, QWEN2_MOE, MIXTRAL -> true;
        };
    }
}
