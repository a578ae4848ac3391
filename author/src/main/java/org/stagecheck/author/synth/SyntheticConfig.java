package org.stagecheck.author.synth;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/**
 * The config.json of a synthetic model, with the keys transformers writes for its family (FAMILIES.md):
 * every shape key, {@code hidden_act}, {@code tie_word_embeddings}, the rotary settings and the
 * dtype in the chosen {@link ConfigStyle}, and the family's own keys (the MoE families' expert keys
 * in the style's spelling: Qwen3-MoE's count is {@code num_experts} in hub files and
 * {@code num_local_experts} in v5 ones; Qwen2-MoE's {@code qkv_bias} is v5's only).
 */
final class SyntheticConfig {
    private SyntheticConfig() {
    }

    static String json(SyntheticModel m) {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeArrayFieldStart("architectures");
            g.writeString(m.family().architecture());
            g.writeEndArray();
            g.writeStringField("model_type", m.family().modelType());
            g.writeNumberField("vocab_size", m.vocab());
            g.writeNumberField("hidden_size", m.hidden());
            g.writeNumberField("intermediate_size", m.ffn());
            g.writeNumberField("num_hidden_layers", m.layers());
            g.writeNumberField("num_attention_heads", m.heads());
            g.writeNumberField("num_key_value_heads", m.kvHeads());
            if (m.writesHeadDim()) {
                g.writeNumberField("head_dim", m.headDim());
            } else if (m.family() == SynthFamily.MIXTRAL && m.configStyle() == ConfigStyle.V5) {
                g.writeNullField("head_dim"); // MixtralConfig's head_dim field, None unless set
            }
            g.writeNumberField("max_position_embeddings", m.maxPositionEmbeddings());
            g.writeNumberField("rms_norm_eps", m.rmsNormEps());
            g.writeStringField("hidden_act", "silu");
            g.writeBooleanField("tie_word_embeddings", m.tieWordEmbeddings());
            g.writeNumberField("initializer_range", 0.02);
            g.writeNumberField("attention_dropout", 0.0);
            g.writeBooleanField("use_cache", true);
            rotary(g, m);
            g.writeStringField(m.configStyle() == ConfigStyle.HUB ? "torch_dtype" : "dtype", torchName(m));
            familyKeys(g, m);
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("a StringWriter does not fail", e);
        }
        return out + "\n";
    }

    private static void rotary(JsonGenerator g, SyntheticModel m) throws IOException {
        Llama3RopeScaling s = m.ropeScaling();
        switch (m.configStyle()) {
            case HUB -> {
                g.writeNumberField("rope_theta", m.ropeTheta());
                if (s == null) {
                    g.writeNullField("rope_scaling");
                } else {
                    g.writeObjectFieldStart("rope_scaling");
                    scaling(g, s);
                    g.writeEndObject();
                }
            }
            case V5 -> {
                g.writeObjectFieldStart("rope_parameters");
                g.writeNumberField("rope_theta", m.ropeTheta());
                if (s == null) {
                    g.writeStringField("rope_type", "default");
                } else {
                    scaling(g, s);
                }
                g.writeEndObject();
            }
        }
    }

    private static void scaling(JsonGenerator g, Llama3RopeScaling s) throws IOException {
        g.writeStringField("rope_type", "llama3");
        g.writeNumberField("factor", s.factor());
        g.writeNumberField("low_freq_factor", s.lowFreqFactor());
        g.writeNumberField("high_freq_factor", s.highFreqFactor());
        g.writeNumberField("original_max_position_embeddings", s.originalMaxPositionEmbeddings());
    }

    private static void familyKeys(JsonGenerator g, SyntheticModel m) throws IOException {
        boolean v5 = m.configStyle() == ConfigStyle.V5;
        switch (m.family()) {
            case LLAMA -> {
                g.writeBooleanField("attention_bias", m.attentionBias());
                g.writeBooleanField("mlp_bias", m.mlpBias());
                g.writeNumberField("pretraining_tp", 1);
            }
            case MISTRAL -> {
                if (m.slidingWindow() == null) {
                    g.writeNullField("sliding_window");
                } else {
                    g.writeNumberField("sliding_window", m.slidingWindow());
                }
            }
            case QWEN2 -> {
                g.writeBooleanField("use_sliding_window", false);
                if (v5) {
                    g.writeNullField("sliding_window"); // what transformers 5 writes
                } else {
                    g.writeNumberField("sliding_window", m.maxPositionEmbeddings()); // hub files carry one, switched off
                }
                g.writeNumberField("max_window_layers", m.layers());
                layerTypes(g, m, v5);
            }
            case QWEN3 -> {
                g.writeBooleanField("attention_bias", m.attentionBias());
                g.writeBooleanField("use_sliding_window", false);
                g.writeNullField("sliding_window");
                g.writeNumberField("max_window_layers", m.layers());
                layerTypes(g, m, v5);
            }
            case QWEN3_MOE -> {
                g.writeBooleanField("attention_bias", m.attentionBias());
                g.writeBooleanField("use_sliding_window", false);
                g.writeNullField("sliding_window");
                if (!v5) {
                    g.writeNumberField("max_window_layers", m.layers()); // hub files carry it; Qwen3MoeConfig has no such field
                }
                // Qwen3MoeConfig maps num_experts to num_local_experts, the name transformers 5 writes
                experts(g, m, v5 ? "num_local_experts" : "num_experts");
            }
            case QWEN2_MOE -> {
                if (v5) {
                    g.writeBooleanField("qkv_bias", true);
                }
                g.writeBooleanField("use_sliding_window", false);
                // Qwen2MoeConfig turns a switched-off window into 0; hub files carry one, switched off
                g.writeNumberField("sliding_window", v5 ? 0 : m.maxPositionEmbeddings());
                g.writeNumberField("max_window_layers", m.layers());
                layerTypes(g, m, v5);
                experts(g, m, "num_experts");
                g.writeNumberField("shared_expert_intermediate_size", m.moe().sharedExpertIntermediate());
            }
            case MIXTRAL -> {
                if (m.slidingWindow() == null) {
                    g.writeNullField("sliding_window");
                } else {
                    g.writeNumberField("sliding_window", m.slidingWindow());
                }
                g.writeNumberField("num_local_experts", m.moe().numExperts());
                g.writeNumberField("num_experts_per_tok", m.moe().expertsPerToken());
                g.writeNumberField("router_jitter_noise", 0.0);
                routerLoss(g);
            }
        }
    }

    /** The Qwen MoE keys: expert count under {@code countKey}, k, expert width, renormalisation and which layers are sparse. */
    private static void experts(JsonGenerator g, SyntheticModel m, String countKey) throws IOException {
        SyntheticMoe moe = m.moe();
        g.writeNumberField(countKey, moe.numExperts());
        g.writeNumberField("num_experts_per_tok", moe.expertsPerToken());
        g.writeNumberField("moe_intermediate_size", moe.moeIntermediate());
        g.writeBooleanField("norm_topk_prob", moe.normTopkProb());
        g.writeNumberField("decoder_sparse_step", moe.decoderSparseStep());
        g.writeArrayFieldStart("mlp_only_layers");
        for (int l : moe.mlpOnlyLayers()) {
            g.writeNumber(l);
        }
        g.writeEndArray();
        routerLoss(g);
    }

    /** Training-only router keys every MoE config carries; they do not change inference. */
    private static void routerLoss(JsonGenerator g) throws IOException {
        g.writeBooleanField("output_router_logits", false);
        g.writeNumberField("router_aux_loss_coef", 0.001);
    }

    private static void layerTypes(JsonGenerator g, SyntheticModel m, boolean v5) throws IOException {
        if (!v5) {
            return;
        }
        g.writeArrayFieldStart("layer_types");
        for (int l = 0; l < m.layers(); l++) {
            g.writeString("full_attention");
        }
        g.writeEndArray();
    }

    private static String torchName(SyntheticModel m) {
        return switch (m.dtype()) {
            case F32 -> "float32";
            case BF16 -> "bfloat16";
            case F16 -> "float16";
            case I32, E4M3, E5M2 -> throw new IllegalStateException("SyntheticModel allows only f32, bf16 and f16, not " + m.dtype());
        };
    }
}
