package org.stagecheck.author.synth;

/** The checkpoint families a synthetic model can be written as: {@code architectures[0]} and {@code model_type}. */
public enum SynthFamily {
    LLAMA("LlamaForCausalLM", "llama"),
    MISTRAL("MistralForCausalLM", "mistral"),
    QWEN2("Qwen2ForCausalLM", "qwen2"),
    QWEN3("Qwen3ForCausalLM", "qwen3");

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
}
