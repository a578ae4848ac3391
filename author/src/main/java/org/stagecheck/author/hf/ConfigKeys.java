package org.stagecheck.author.hf;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.stagecheck.author.Family;
import org.stagecheck.author.ModelSpecException;
import org.stagecheck.spec.json.JNode;

/**
 * Every top-level config.json key stagecheck knows, per family: the keys it understands (read
 * into the model spec by {@link HfConfig}) and the keys it knows to be inert (they do not change
 * the logits of a forward pass). Any other key is refused by name, never ignored: a key stagecheck
 * does not know may change the model (soft-capping, quantization, experts, partial rotary), and
 * a model read wrongly would be checked against the wrong reference. Facts from the families'
 * configuration classes in transformers (docs/author.md, "Checkpoints").
 */
final class ConfigKeys {
    private ConfigKeys() {
    }

    /** Keys every family reads (HfConfig): dispatch, sizes, norm, activation, rotary, head tying. */
    private static final List<String> SHARED = List.of(
            "architectures", "model_type",
            "vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
            "head_dim", "intermediate_size",
            "rms_norm_eps", "hidden_act", "tie_word_embeddings",
            "rope_theta", "rope_scaling", "rope_parameters");

    /** The sliding-window keys of Qwen2 and Qwen3, accepted only when they leave every layer on full attention. */
    private static final List<String> QWEN_WINDOW = List.of("use_sliding_window", "sliding_window", "max_window_layers",
            "layer_types");

    /** The mixture-of-experts keys of Qwen2-MoE and Qwen3-MoE (hub {@code num_experts}, v5 {@code num_local_experts}). */
    private static final List<String> QWEN_MOE = List.of("num_experts", "num_local_experts", "num_experts_per_tok",
            "moe_intermediate_size", "norm_topk_prob", "decoder_sparse_step", "mlp_only_layers");

    /** The keys {@code family} understands. */
    static List<String> understood(Family family) {
        List<String> own = switch (family) {
            case LLAMA -> List.of("attention_bias", "mlp_bias");
            case MISTRAL -> List.of("sliding_window");
            case QWEN2 -> QWEN_WINDOW;
            case QWEN3 -> Stream.concat(Stream.of("attention_bias"), QWEN_WINDOW.stream()).toList();
            case QWEN3_MOE -> Stream.of(List.of("attention_bias"), QWEN_WINDOW, QWEN_MOE).flatMap(List::stream).toList();
            case QWEN2_MOE -> Stream.of(List.of("qkv_bias", "shared_expert_intermediate_size"), QWEN_WINDOW, QWEN_MOE)
                    .flatMap(List::stream).toList();
            case MIXTRAL -> List.of("sliding_window", "num_local_experts", "num_experts_per_tok");
            // not a checkpoint family: HfConfig never dispatches to it
            case STAGECHECK -> List.of();
        };
        return Stream.concat(SHARED.stream(), own.stream()).toList();
    }

    /** The keys {@code family} knows to be inert, with the values at which they are. */
    static Map<String, InertValue> inert(Family family) {
        Map<String, InertValue> m = new LinkedHashMap<>();
        // where the config was loaded from or written by: bookkeeping
        m.put("_name_or_path", InertValue.STRING);
        m.put("transformers_version", InertValue.STRING);
        // the dtype the writer had in memory; the safetensors header's dtype is the truth (the caller reads it)
        m.put("torch_dtype", InertValue.STRING_OR_NULL);
        m.put("dtype", InertValue.STRING_OR_NULL);
        // token ids for the tokenizer and generation; the forward pass never reads them (the
        // embedding's padding_idx only stops gradients, the loaded row is used as is)
        m.put("bos_token_id", InertValue.TOKEN_IDS);
        m.put("eos_token_id", InertValue.TOKEN_IDS);
        m.put("pad_token_id", InertValue.TOKEN_IDS);
        m.put("tokenizer_class", InertValue.STRING_OR_NULL);
        // the spread of random initial weights; every weight is loaded from the checkpoint
        m.put("initializer_range", InertValue.NUMBER);
        // whether the KV cache is returned, not what is computed
        m.put("use_cache", InertValue.BOOLEAN);
        // dropout acts in training only; inference (eval mode) never drops
        m.put("attention_dropout", InertValue.NUMBER);
        // the trained context length: for default and llama3 rotary it sizes tables, not their
        // values (llama3 reads it only when original_max_position_embeddings is absent, which
        // RopeConfig handles); the rotary types that use it otherwise (dynamic, yarn, longrope) are refused
        m.put("max_position_embeddings", InertValue.INTEGER);
        // which outputs a transformers call returns, and the attention kernel it picked: the same
        // attention is computed (eager, sdpa and flash agree up to rounding)
        m.put("output_attentions", InertValue.BOOLEAN);
        m.put("output_hidden_states", InertValue.BOOLEAN);
        m.put("return_dict", InertValue.BOOLEAN);
        m.put("_attn_implementation_autoset", InertValue.BOOLEAN);
        switch (family) {
            // Llama 2 configs carry pretraining_tp 1; above 1 transformers 4 splits every
            // projection into that many slices and sums them, a different rounding
            case LLAMA -> {
                m.put("pretraining_tp", InertValue.ONE);
                // configs written by nanotron (SmolLM, SmolLM2): a marker of which of its config
                // classes wrote the file, and its rotary layout; transformers reads neither, and
                // false is the half-split rotary transformers computes (true would be pairs that
                // the checkpoint was trained with and transformers does not apply)
                m.put("is_llama_config", InertValue.BOOLEAN);
                m.put("rope_interleaved", InertValue.FALSE);
            }
            case MISTRAL -> {
            }
            // Qwen2.5 configs carry use_mrope false; true is Qwen2-VL's multimodal rotary
            case QWEN2 -> m.put("use_mrope", InertValue.FALSE);
            case QWEN3 -> {
            }
            case QWEN2_MOE, QWEN3_MOE, MIXTRAL -> {
                // the router's auxiliary loss and whether the router logits are returned: training
                // and outputs only; Mixtral's jitter noise is applied only in training mode
                m.put("router_aux_loss_coef", InertValue.NUMBER);
                m.put("output_router_logits", InertValue.BOOLEAN);
                if (family == Family.MIXTRAL) {
                    m.put("router_jitter_noise", InertValue.NUMBER);
                }
            }
            case STAGECHECK -> {
            }
        }
        return m;
    }

    /**
     * Keys met in configs of other models, with what they would ask for: named in the refusal so
     * that the reason is plain. Any other unknown key is refused the same way, without the gloss.
     */
    private static final Map<String, String> NOT_IMPLEMENTED = Map.ofEntries(
            Map.entry("quantization_config", "quantized weights"),
            Map.entry("auto_map", "the model's own modeling code"),
            Map.entry("attn_logit_softcapping", "soft-capped attention scores"),
            Map.entry("final_logit_softcapping", "soft-capped logits"),
            Map.entry("partial_rotary_factor", "rotary embedding on part of each head"),
            Map.entry("num_experts", "a mixture of experts"),
            Map.entry("num_local_experts", "a mixture of experts"),
            Map.entry("num_experts_per_tok", "a mixture of experts"),
            Map.entry("moe_intermediate_size", "a mixture of experts"),
            Map.entry("shared_expert_intermediate_size", "a mixture of experts"),
            Map.entry("query_pre_attn_scalar", "a non-standard attention scale"),
            Map.entry("qkv_bias", "a switch of the q/k/v biases that this family does not have"));

    /**
     * Refuses the first key of {@code config} that {@code family} neither understands nor knows
     * to be inert, and the first inert key whose value is not one at which it is inert.
     */
    static void check(ConfigJson config, Family family) throws ModelSpecException {
        List<String> understood = understood(family);
        Map<String, InertValue> inert = inert(family);
        for (Map.Entry<String, JNode> e : config.object().fields().entrySet()) {
            String key = e.getKey();
            if (understood.contains(key)) {
                continue;
            }
            InertValue shape = inert.get(key);
            if (shape == null) {
                String what = NOT_IMPLEMENTED.get(key);
                throw config.at(e.getValue(), "unknown key \"" + key + "\"" + (what == null ? "" : " (" + what + ")")
                        + ": stagecheck does not implement it for " + family.architecture()
                        + ", and refuses a config.json key it does not understand rather than ignore it");
            }
            if (!shape.accepts(e.getValue())) {
                throw config.at(e.getValue(), "\"" + key + "\" must be " + shape.description() + ", not "
                        + shown(e.getValue()));
            }
        }
    }

    /** A value for a message: its text when a number or boolean, else its type. */
    static String shown(JNode v) {
        return switch (v) {
            case JNode.JNumber n -> n.text();
            case JNode.JBool b -> Boolean.toString(b.value());
            case JNode.JString s -> "a string";
            case JNode.JNull n -> "null";
            case JNode.JObject o -> "an object";
            case JNode.JArray a -> "an array";
        };
    }
}
