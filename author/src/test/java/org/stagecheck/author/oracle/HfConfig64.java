package org.stagecheck.author.oracle;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What the float64 oracle takes from a Hugging Face {@code config.json} (FAMILIES.md): the shapes,
 * the family's fixed choices (which projections carry a bias, Qwen3's q/k norms, Mistral's window)
 * and the rotary parameters, from either config style (hub {@code rope_theta}/{@code rope_scaling},
 * v5 {@code rope_parameters}). A key absent from the file takes its config class default.
 *
 * @param slidingWindow W when key j is visible to query p only if {@code p - W < j <= p}; 0: none
 * @param llama3 the {@code llama3} rotary scaling, or null for none
 * @param moe the experts of Qwen3-MoE, Qwen2-MoE and Mixtral; null in the dense families
 */
public record HfConfig64(
        Family family,
        int vocab,
        int hidden,
        int intermediate,
        int layers,
        int heads,
        int kvHeads,
        int headDim,
        double rmsNormEps,
        double ropeTheta,
        Llama3Scaling llama3,
        boolean tiedHead,
        boolean qkvBias,
        boolean oBias,
        boolean mlpBias,
        boolean qkNorm,
        int slidingWindow,
        MoeConfig64 moe) {

    /** The four dense families, the three mixture-of-experts ones, and the class names {@code architectures[0]} carries. */
    public enum Family {
        LLAMA("LlamaForCausalLM", "llama"),
        MISTRAL("MistralForCausalLM", "mistral"),
        QWEN2("Qwen2ForCausalLM", "qwen2"),
        QWEN3("Qwen3ForCausalLM", "qwen3"),
        /** Qwen3's attention, sparse MLPs. */
        QWEN3_MOE("Qwen3MoeForCausalLM", "qwen3_moe"),
        /** Qwen2's attention ({@code qkv_bias}), sparse MLPs with a shared expert. */
        QWEN2_MOE("Qwen2MoeForCausalLM", "qwen2_moe"),
        /** Mistral's attention, every MLP sparse and renormalised. */
        MIXTRAL("MixtralForCausalLM", "mixtral");

        final String architecture;
        final String modelType;

        Family(String architecture, String modelType) {
            this.architecture = architecture;
            this.modelType = modelType;
        }
    }

    /** {@code _compute_llama3_parameters}: factor, the two band factors and the old context length. */
    public record Llama3Scaling(double factor, double lowFreqFactor, double highFreqFactor, double originalMaxPositions) {}

    /** Reads a parsed config.json; {@code where} names the file in messages. */
    public static HfConfig64 parse(JsonNode root, String where) {
        if (root == null || !root.isObject()) {
            throw new OracleInputException(where + ": not a JSON object");
        }
        ConfigKeys keys = new ConfigKeys(root, where);
        Family family = family(root, where);
        int hidden = keys.requiredPositiveInt("hidden_size");
        int heads = keys.requiredPositiveInt("num_attention_heads");
        int headDim = headDim(keys, family, hidden, heads);
        int kvHeads = kvHeads(keys, family, heads);
        if (heads % kvHeads != 0) {
            throw new OracleInputException(where + ": num_attention_heads " + heads + " is not a multiple of num_key_value_heads " + kvHeads);
        }
        if (headDim % 2 != 0) {
            throw new OracleInputException(where + ": head dimension " + headDim + " is odd; rotate_half needs it even");
        }
        String act = keys.text("hidden_act", "silu");
        if (!act.equals("silu")) {
            throw new OracleInputException(where + ": hidden_act " + act + "; these families use silu");
        }
        boolean attentionBias = keys.bool("attention_bias", false);
        int intermediate = keys.requiredPositiveInt("intermediate_size");
        int layers = keys.requiredPositiveInt("num_hidden_layers");
        return new HfConfig64(
                family,
                keys.requiredPositiveInt("vocab_size"),
                hidden,
                intermediate,
                layers,
                heads,
                kvHeads,
                headDim,
                keys.number("rms_norm_eps", 1e-6),
                // MixtralConfig.default_theta is 1e6; the others take the mixin's 10000
                RopeKeys.theta(keys, family == Family.MIXTRAL ? 1_000_000.0 : 10000.0),
                RopeKeys.llama3(keys),
                keys.bool("tie_word_embeddings", false),
                switch (family) {
                    case LLAMA, QWEN3, QWEN3_MOE -> attentionBias;
                    case QWEN2 -> true;
                    case QWEN2_MOE -> keys.bool("qkv_bias", true); // v5 writes it, hub files lack it
                    case MISTRAL, MIXTRAL -> false;
                },
                switch (family) { case LLAMA, QWEN3, QWEN3_MOE -> attentionBias; case QWEN2, MISTRAL, QWEN2_MOE, MIXTRAL -> false; },
                family == Family.LLAMA && keys.bool("mlp_bias", false),
                family == Family.QWEN3 || family == Family.QWEN3_MOE,
                window(keys, family),
                switch (family) {
                    case LLAMA, MISTRAL, QWEN2, QWEN3 -> null;
                    case QWEN3_MOE, QWEN2_MOE, MIXTRAL -> MoeConfig64.parse(keys, family, layers, intermediate);
                });
    }

    private static Family family(JsonNode root, String where) {
        JsonNode arch = root.path("architectures").path(0);
        for (Family f : Family.values()) {
            if (arch.isTextual() ? arch.asText().equals(f.architecture) : root.path("model_type").asText("").equals(f.modelType)) {
                return f;
            }
        }
        throw new OracleInputException(where + ": architectures " + root.get("architectures") + ", model_type " + root.get("model_type")
                + " is none of LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM, Qwen3MoeForCausalLM,"
                + " Qwen2MoeForCausalLM, MixtralForCausalLM");
    }

    /**
     * {@code head_dim} when present and non-null; absent, Qwen3's class default 128; else hidden / heads
     * (Qwen3-MoE's attention reads {@code getattr(config, "head_dim", hidden // heads)}: no 128 default).
     */
    private static int headDim(ConfigKeys keys, Family family, int hidden, int heads) {
        if (keys.isNonNull("head_dim")) {
            return keys.requiredPositiveInt("head_dim");
        }
        if (family == Family.QWEN3 && !keys.has("head_dim")) {
            return 128;
        }
        if (hidden % heads != 0) {
            throw new OracleInputException(keys.where() + ": hidden_size " + hidden + " is not a multiple of num_attention_heads " + heads + " and head_dim is not given");
        }
        return hidden / heads;
    }

    /** null: as many as query heads; absent: the class default (Llama: heads, Mistral 8, Qwen2/Qwen3 32, Qwen3-MoE 4, Qwen2-MoE 16, Mixtral 8). */
    private static int kvHeads(ConfigKeys keys, Family family, int heads) {
        if (keys.isNonNull("num_key_value_heads")) {
            return keys.requiredPositiveInt("num_key_value_heads");
        }
        if (keys.has("num_key_value_heads")) {
            return heads;
        }
        return switch (family) {
            case LLAMA -> heads;
            case MISTRAL, MIXTRAL -> 8;
            case QWEN2, QWEN3 -> 32;
            case QWEN3_MOE -> 4;
            case QWEN2_MOE -> 16;
        };
    }

    /**
     * Mistral: {@code sliding_window} on every layer (absent: 4096, null: none); Mixtral the same but
     * absent means none (its class default is None). Qwen windows are refused; with
     * {@code use_sliding_window} false their {@code sliding_window} (a number, null, or Qwen2-MoE v5's 0) is ignored.
     */
    private static int window(ConfigKeys keys, Family family) {
        return switch (family) {
            case LLAMA -> 0;
            case MISTRAL -> !keys.has("sliding_window") ? 4096 : keys.isNonNull("sliding_window") ? keys.requiredPositiveInt("sliding_window") : 0;
            case MIXTRAL -> keys.isNonNull("sliding_window") ? keys.requiredPositiveInt("sliding_window") : 0;
            case QWEN2, QWEN3, QWEN3_MOE, QWEN2_MOE -> {
                if (keys.bool("use_sliding_window", false)) {
                    throw new OracleInputException(keys.where() + ": use_sliding_window true is refused (the families disagree on its layers)");
                }
                keys.requireAllFullAttention();
                yield 0;
            }
        };
    }
}
