package org.stagecheck.author;

/**
 * Where a model's definition comes from: stagecheck's own generated model, or one of the Hugging
 * Face checkpoint families {@code author --model DIR} reads (docs/author.md, "Checkpoints"). The
 * family fixes the tensor names of a checkpoint and how the rotary tables are computed.
 */
public enum Family {
    /** stagecheck's generated Llama-style model (weights from a seed); rotary tables computed in double. */
    STAGECHECK("stagecheck", null),
    LLAMA("llama", "LlamaForCausalLM"),
    MISTRAL("mistral", "MistralForCausalLM"),
    QWEN2("qwen2", "Qwen2ForCausalLM"),
    QWEN3("qwen3", "Qwen3ForCausalLM"),
    QWEN2_MOE("qwen2_moe", "Qwen2MoeForCausalLM"),
    QWEN3_MOE("qwen3_moe", "Qwen3MoeForCausalLM"),
    MIXTRAL("mixtral", "MixtralForCausalLM");

    private final String jsonName;
    private final String architecture;

    Family(String jsonName, String architecture) {
        this.jsonName = jsonName;
        this.architecture = architecture;
    }

    /** The spelling in {@code model.json} (the Hugging Face {@code model_type}). */
    public String jsonName() {
        return jsonName;
    }

    /** The {@code architectures[0]} of a checkpoint's config.json, or null for stagecheck's own model. */
    public String architecture() {
        return architecture;
    }

    /**
     * Whether the rotary tables follow the families' reference code: inverse frequencies and angles
     * in f32 (then cos/sin), as transformers computes them; stagecheck's own model computes the
     * angle in double.
     */
    public boolean f32Rotary() {
        return this != STAGECHECK;
    }

    /** The family of a model.json spelling, or null. */
    public static Family ofJsonName(String name) {
        for (Family f : values()) {
            if (f.jsonName.equals(name)) {
                return f;
            }
        }
        return null;
    }

    /** The family of a config.json {@code architectures[0]}, or null. */
    public static Family ofArchitecture(String name) {
        for (Family f : values()) {
            if (f.architecture != null && f.architecture.equals(name)) {
                return f;
            }
        }
        return null;
    }
}
