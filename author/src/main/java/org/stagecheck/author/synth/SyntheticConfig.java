package org.stagecheck.author.synth;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/**
 * The config.json of a synthetic model, with the keys transformers writes for its family (FAMILIES.md):
 * every shape key, {@code hidden_act}, {@code tie_word_embeddings}, the rotary settings and the
 * dtype in the chosen {@link ConfigStyle}, and the family's own keys.
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
        }
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
