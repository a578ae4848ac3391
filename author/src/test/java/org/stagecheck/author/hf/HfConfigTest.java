package org.stagecheck.author.hf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.author.Architecture;
import org.stagecheck.author.CheckpointSource;
import org.stagecheck.author.Family;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.author.ModelSpecException;
import org.stagecheck.author.RopeScaling;
import org.stagecheck.spec.ir.DType;

class HfConfigTest {
    @TempDir
    Path tmp;

    // ---- real-shaped configs, as published (hub, transformers 4) and as transformers 5 writes them

    /** Llama 3.1 8B as published. */
    static final String LLAMA31_HUB = """
            {
              "architectures": [
                "LlamaForCausalLM"
              ],
              "attention_bias": false,
              "attention_dropout": 0.0,
              "bos_token_id": 128000,
              "eos_token_id": [128001, 128008, 128009],
              "hidden_act": "silu",
              "hidden_size": 4096,
              "initializer_range": 0.02,
              "intermediate_size": 14336,
              "max_position_embeddings": 131072,
              "mlp_bias": false,
              "model_type": "llama",
              "num_attention_heads": 32,
              "num_hidden_layers": 32,
              "num_key_value_heads": 8,
              "pretraining_tp": 1,
              "rms_norm_eps": 1e-05,
              "rope_scaling": {
                "factor": 8.0,
                "high_freq_factor": 4.0,
                "low_freq_factor": 1.0,
                "original_max_position_embeddings": 8192,
                "rope_type": "llama3"
              },
              "rope_theta": 500000.0,
              "tie_word_embeddings": false,
              "torch_dtype": "bfloat16",
              "transformers_version": "4.43.0.dev0",
              "use_cache": true,
              "vocab_size": 128256
            }
            """;

    /** Llama 3.2 1B as transformers 5 writes it: rope_parameters, dtype, tied head, explicit head_dim. */
    static final String LLAMA32_V5 = """
            {
              "architectures": [
                "LlamaForCausalLM"
              ],
              "attention_bias": false,
              "attention_dropout": 0.0,
              "bos_token_id": 128000,
              "dtype": "bfloat16",
              "eos_token_id": 128001,
              "head_dim": 64,
              "hidden_act": "silu",
              "hidden_size": 2048,
              "initializer_range": 0.02,
              "intermediate_size": 8192,
              "max_position_embeddings": 131072,
              "mlp_bias": false,
              "model_type": "llama",
              "num_attention_heads": 32,
              "num_hidden_layers": 16,
              "num_key_value_heads": 8,
              "pad_token_id": null,
              "pretraining_tp": 1,
              "rms_norm_eps": 1e-05,
              "rope_parameters": {
                "factor": 32.0,
                "high_freq_factor": 4.0,
                "low_freq_factor": 1.0,
                "original_max_position_embeddings": 8192,
                "rope_theta": 500000.0,
                "rope_type": "llama3"
              },
              "tie_word_embeddings": true,
              "transformers_version": "5.18.0",
              "use_cache": true,
              "vocab_size": 128256
            }
            """;

    /** SmolLM2 135M as published (written by nanotron): nanotron's own inert keys, a tied head. */
    static final String SMOLLM2_HUB = """
            {
              "architectures": [
                "LlamaForCausalLM"
              ],
              "attention_bias": false,
              "attention_dropout": 0.0,
              "bos_token_id": 0,
              "eos_token_id": 0,
              "hidden_act": "silu",
              "hidden_size": 576,
              "initializer_range": 0.041666666666666664,
              "intermediate_size": 1536,
              "is_llama_config": true,
              "max_position_embeddings": 8192,
              "mlp_bias": false,
              "model_type": "llama",
              "num_attention_heads": 9,
              "num_hidden_layers": 30,
              "num_key_value_heads": 3,
              "pretraining_tp": 1,
              "rms_norm_eps": 1e-05,
              "rope_interleaved": false,
              "rope_scaling": null,
              "rope_theta": 100000,
              "tie_word_embeddings": true,
              "torch_dtype": "bfloat16",
              "transformers_version": "4.42.3",
              "use_cache": true,
              "vocab_size": 49152
            }
            """;

    /** Mistral 7B v0.1 as published: a 4096 window on every layer. */
    static final String MISTRAL_HUB = """
            {
              "architectures": [
                "MistralForCausalLM"
              ],
              "bos_token_id": 1,
              "eos_token_id": 2,
              "hidden_act": "silu",
              "hidden_size": 4096,
              "initializer_range": 0.02,
              "intermediate_size": 14336,
              "max_position_embeddings": 32768,
              "model_type": "mistral",
              "num_attention_heads": 32,
              "num_hidden_layers": 32,
              "num_key_value_heads": 8,
              "rms_norm_eps": 1e-05,
              "rope_theta": 10000.0,
              "sliding_window": 4096,
              "tie_word_embeddings": false,
              "torch_dtype": "bfloat16",
              "transformers_version": "4.34.0.dev0",
              "use_cache": true,
              "vocab_size": 32000
            }
            """;

    /** Mistral 7B v0.3 as transformers 5 writes it: no window, rope_parameters. */
    static final String MISTRAL_V5 = """
            {
              "architectures": [
                "MistralForCausalLM"
              ],
              "attention_dropout": 0.0,
              "bos_token_id": 1,
              "dtype": "bfloat16",
              "eos_token_id": 2,
              "head_dim": null,
              "hidden_act": "silu",
              "hidden_size": 4096,
              "initializer_range": 0.02,
              "intermediate_size": 14336,
              "max_position_embeddings": 32768,
              "model_type": "mistral",
              "num_attention_heads": 32,
              "num_hidden_layers": 32,
              "num_key_value_heads": 8,
              "pad_token_id": null,
              "rms_norm_eps": 1e-05,
              "rope_parameters": {
                "rope_theta": 1000000.0,
                "rope_type": "default"
              },
              "sliding_window": null,
              "tie_word_embeddings": false,
              "transformers_version": "5.18.0",
              "use_cache": true,
              "vocab_size": 32768
            }
            """;

    /** Qwen2.5 0.5B as published: a window named but switched off, tied head. */
    static final String QWEN25_HUB = """
            {
              "architectures": [
                "Qwen2ForCausalLM"
              ],
              "attention_dropout": 0.0,
              "bos_token_id": 151643,
              "eos_token_id": 151643,
              "hidden_act": "silu",
              "hidden_size": 896,
              "initializer_range": 0.02,
              "intermediate_size": 4864,
              "max_position_embeddings": 32768,
              "max_window_layers": 24,
              "model_type": "qwen2",
              "num_attention_heads": 14,
              "num_hidden_layers": 24,
              "num_key_value_heads": 2,
              "rms_norm_eps": 1e-06,
              "rope_theta": 1000000.0,
              "sliding_window": 32768,
              "tie_word_embeddings": true,
              "torch_dtype": "bfloat16",
              "transformers_version": "4.40.1",
              "use_cache": true,
              "use_mrope": false,
              "use_sliding_window": false,
              "vocab_size": 151936
            }
            """;

    /** Qwen2.5 1.5B as transformers 5 writes it: layer_types, sliding_window null. */
    static final String QWEN25_V5 = """
            {
              "architectures": [
                "Qwen2ForCausalLM"
              ],
              "attention_dropout": 0.0,
              "bos_token_id": 151643,
              "dtype": "bfloat16",
              "eos_token_id": 151643,
              "hidden_act": "silu",
              "hidden_size": 1536,
              "initializer_range": 0.02,
              "intermediate_size": 8960,
              "layer_types": [
                "full_attention",
                "full_attention",
                "full_attention",
                "full_attention"
              ],
              "max_position_embeddings": 131072,
              "max_window_layers": 28,
              "model_type": "qwen2",
              "num_attention_heads": 12,
              "num_hidden_layers": 4,
              "num_key_value_heads": 2,
              "pad_token_id": null,
              "rms_norm_eps": 1e-06,
              "rope_parameters": {
                "rope_theta": 1000000.0,
                "rope_type": "default"
              },
              "sliding_window": null,
              "tie_word_embeddings": true,
              "transformers_version": "5.17.0",
              "use_cache": true,
              "use_mrope": false,
              "use_sliding_window": false,
              "vocab_size": 151936
            }
            """;

    /** Qwen3 0.6B as published: head_dim 128 although hidden / heads is 64. */
    static final String QWEN3_HUB = """
            {
              "architectures": [
                "Qwen3ForCausalLM"
              ],
              "attention_bias": false,
              "attention_dropout": 0.0,
              "bos_token_id": 151643,
              "eos_token_id": 151645,
              "head_dim": 128,
              "hidden_act": "silu",
              "hidden_size": 1024,
              "initializer_range": 0.02,
              "intermediate_size": 3072,
              "max_position_embeddings": 40960,
              "max_window_layers": 28,
              "model_type": "qwen3",
              "num_attention_heads": 16,
              "num_hidden_layers": 28,
              "num_key_value_heads": 8,
              "rms_norm_eps": 1e-06,
              "rope_scaling": null,
              "rope_theta": 1000000,
              "sliding_window": null,
              "tie_word_embeddings": true,
              "torch_dtype": "bfloat16",
              "transformers_version": "4.51.0",
              "use_cache": true,
              "use_sliding_window": false,
              "vocab_size": 151936
            }
            """;

    /** Qwen3 8B-shaped (two layers) as transformers 5 writes it. */
    static final String QWEN3_V5 = """
            {
              "architectures": [
                "Qwen3ForCausalLM"
              ],
              "attention_bias": false,
              "attention_dropout": 0.0,
              "bos_token_id": 151643,
              "dtype": "float32",
              "eos_token_id": 151645,
              "head_dim": 128,
              "hidden_act": "silu",
              "hidden_size": 4096,
              "initializer_range": 0.02,
              "intermediate_size": 12288,
              "layer_types": [
                "full_attention",
                "full_attention"
              ],
              "max_position_embeddings": 40960,
              "max_window_layers": 36,
              "model_type": "qwen3",
              "num_attention_heads": 32,
              "num_hidden_layers": 2,
              "num_key_value_heads": 8,
              "pad_token_id": null,
              "rms_norm_eps": 1e-06,
              "rope_parameters": {
                "rope_theta": 1000000,
                "rope_type": "default"
              },
              "sliding_window": null,
              "tie_word_embeddings": false,
              "transformers_version": "5.18.0",
              "use_cache": true,
              "use_sliding_window": false,
              "vocab_size": 151936
            }
            """;

    // ---- what each family maps to

    @Test
    void llama31HubConfigWithLlama3Rescaling() throws Exception {
        Path dir = model("Llama-3.1-8B", LLAMA31_HUB);
        ModelSpec spec = HfConfig.read(dir, DType.BF16);
        Architecture arch = new Architecture(Family.LLAMA, false, false, false, false, 0,
                new RopeScaling.Llama3(8.0, 1.0, 4.0, 8192), false);
        assertThat(spec).isEqualTo(new ModelSpec("Llama-3.1-8B", 128256, 4096, 32, 32, 8, 128, 14336, 500000.0, 1e-5, 0L,
                arch, new CheckpointSource(dir, DType.BF16)));
    }

    @Test
    void llama32V5ConfigReadsRopeParametersAndTiedHead() throws Exception {
        Path dir = model("Llama-3.2-1B", LLAMA32_V5);
        ModelSpec spec = HfConfig.read(dir, DType.F32);
        Architecture arch = new Architecture(Family.LLAMA, false, false, false, false, 0,
                new RopeScaling.Llama3(32.0, 1.0, 4.0, 8192), true);
        assertThat(spec).isEqualTo(new ModelSpec("Llama-3.2-1B", 128256, 2048, 16, 32, 8, 64, 8192, 500000.0, 1e-5, 0L,
                arch, new CheckpointSource(dir, DType.F32)));
    }

    @Test
    void smolLm2ConfigWithNanotronKeys() throws Exception {
        Path dir = model("SmolLM2-135M", SMOLLM2_HUB);
        ModelSpec spec = HfConfig.read(dir, DType.BF16);
        Architecture arch = new Architecture(Family.LLAMA, false, false, false, false, 0, RopeScaling.NONE, true);
        assertThat(spec).isEqualTo(new ModelSpec("SmolLM2-135M", 49152, 576, 30, 9, 3, 64, 1536, 100000.0, 1e-5, 0L,
                arch, new CheckpointSource(dir, DType.BF16)));
        refused(SMOLLM2_HUB.replace("\"rope_interleaved\": false", "\"rope_interleaved\": true"),
                "\"rope_interleaved\" must be false (true is not implemented), not true");
    }

    @Test
    void llamaBiasesFollowAttentionBiasAndMlpBias() throws Exception {
        String json = LLAMA31_HUB.replace("\"attention_bias\": false", "\"attention_bias\": true")
                .replace("\"mlp_bias\": false", "\"mlp_bias\": true");
        Architecture arch = HfConfig.read(model("m", json), DType.BF16).arch();
        assertThat(arch.qkvBias()).isTrue();
        assertThat(arch.outputBias()).isTrue();
        assertThat(arch.mlpBias()).isTrue();
        assertThat(arch.qkNorm()).isFalse();
    }

    @Test
    void llama3RescalingFallsBackToMaxPositionEmbeddings() throws Exception {
        String json = LLAMA31_HUB.replace("\"original_max_position_embeddings\": 8192,\n", "");
        assertThat(HfConfig.read(model("m", json), DType.BF16).arch().ropeScaling())
                .isEqualTo(new RopeScaling.Llama3(8.0, 1.0, 4.0, 131072));
        // older files spell the type "type"
        String old = LLAMA31_HUB.replace("\"rope_type\": \"llama3\"", "\"type\": \"llama3\"");
        assertThat(HfConfig.read(model("m", old), DType.BF16).arch().ropeScaling())
                .isEqualTo(new RopeScaling.Llama3(8.0, 1.0, 4.0, 8192));
    }

    @Test
    void mistralHubConfigHasItsWindow() throws Exception {
        Path dir = model("Mistral-7B-v0.1", MISTRAL_HUB);
        ModelSpec spec = HfConfig.read(dir, DType.BF16);
        Architecture arch = new Architecture(Family.MISTRAL, false, false, false, false, 4096, RopeScaling.NONE, false);
        assertThat(spec).isEqualTo(new ModelSpec("Mistral-7B-v0.1", 32000, 4096, 32, 32, 8, 128, 14336, 10000.0, 1e-5, 0L,
                arch, new CheckpointSource(dir, DType.BF16)));
    }

    @Test
    void mistralV5ConfigWithNullWindowHasNone() throws Exception {
        ModelSpec spec = HfConfig.read(model("Mistral-7B-v0.3", MISTRAL_V5), DType.BF16);
        assertThat(spec.arch()).isEqualTo(new Architecture(Family.MISTRAL, false, false, false, false, 0, RopeScaling.NONE, false));
        assertThat(spec.ropeTheta()).isEqualTo(1000000.0);
        assertThat(spec.headDim()).isEqualTo(128);
        assertThat(spec.vocab()).isEqualTo(32768);
    }

    @Test
    void mistralWithoutSlidingWindowGetsTheClassDefault4096() throws Exception {
        String json = MISTRAL_HUB.replace("  \"sliding_window\": 4096,\n", "");
        assertThat(json).doesNotContain("sliding_window");
        assertThat(HfConfig.read(model("m", json), DType.BF16).arch().slidingWindow()).isEqualTo(4096);
        String small = MISTRAL_HUB.replace("\"sliding_window\": 4096", "\"sliding_window\": 7");
        assertThat(HfConfig.read(model("m", small), DType.BF16).arch().slidingWindow()).isEqualTo(7);
    }

    @Test
    void qwen25HubConfigWithWindowSwitchedOffHasNoWindow() throws Exception {
        Path dir = model("Qwen2.5-0.5B", QWEN25_HUB);
        ModelSpec spec = HfConfig.read(dir, DType.BF16);
        Architecture arch = new Architecture(Family.QWEN2, true, false, false, false, 0, RopeScaling.NONE, true);
        assertThat(spec).isEqualTo(new ModelSpec("Qwen2.5-0.5B", 151936, 896, 24, 14, 2, 64, 4864, 1000000.0, 1e-6, 0L,
                arch, new CheckpointSource(dir, DType.BF16)));
    }

    @Test
    void qwen25V5ConfigWithFullAttentionLayerTypes() throws Exception {
        ModelSpec spec = HfConfig.read(model("Qwen2.5-1.5B", QWEN25_V5), DType.BF16);
        assertThat(spec.arch()).isEqualTo(new Architecture(Family.QWEN2, true, false, false, false, 0, RopeScaling.NONE, true));
        assertThat(spec.heads()).isEqualTo(12);
        assertThat(spec.kvHeads()).isEqualTo(2);
        assertThat(spec.headDim()).isEqualTo(128);
        assertThat(spec.layers()).isEqualTo(4);
        assertThat(spec.ropeTheta()).isEqualTo(1000000.0);
    }

    @Test
    void qwen3HubConfigHasQkNormAndItsExplicitHeadDim() throws Exception {
        Path dir = model("Qwen3-0.6B", QWEN3_HUB);
        ModelSpec spec = HfConfig.read(dir, DType.BF16);
        Architecture arch = new Architecture(Family.QWEN3, false, false, false, true, 0, RopeScaling.NONE, true);
        assertThat(spec).isEqualTo(new ModelSpec("Qwen3-0.6B", 151936, 1024, 28, 16, 8, 128, 3072, 1000000.0, 1e-6, 0L,
                arch, new CheckpointSource(dir, DType.BF16)));
    }

    @Test
    void qwen3V5ConfigAndAttentionBias() throws Exception {
        ModelSpec spec = HfConfig.read(model("Qwen3-8B", QWEN3_V5), DType.F32);
        assertThat(spec.arch()).isEqualTo(new Architecture(Family.QWEN3, false, false, false, true, 0, RopeScaling.NONE, false));
        assertThat(spec.hidden()).isEqualTo(4096);
        assertThat(spec.ffn()).isEqualTo(12288);
        String biased = QWEN3_V5.replace("\"attention_bias\": false", "\"attention_bias\": true");
        Architecture arch = HfConfig.read(model("m", biased), DType.F32).arch();
        assertThat(arch.qkvBias()).isTrue();
        assertThat(arch.outputBias()).isTrue();
    }

    // ---- defaults transformers derives itself

    @Test
    void absentHeadDimIsHiddenOverHeadsAndAbsentEpsIs1e6() throws Exception {
        String json = LLAMA32_V5.replace("  \"head_dim\": 64,\n", "").replace("  \"rms_norm_eps\": 1e-05,\n", "");
        ModelSpec spec = HfConfig.read(model("m", json), DType.BF16);
        assertThat(spec.headDim()).isEqualTo(2048 / 32);
        assertThat(spec.normEps()).isEqualTo(1e-6);
    }

    @Test
    void nullKvHeadsMeansOnePerQueryHeadAndLlamaMayOmitIt() throws Exception {
        String nulled = MISTRAL_HUB.replace("\"num_key_value_heads\": 8", "\"num_key_value_heads\": null");
        assertThat(HfConfig.read(model("m", nulled), DType.BF16).kvHeads()).isEqualTo(32);
        String absent = LLAMA31_HUB.replace("  \"num_key_value_heads\": 8,\n", "");
        assertThat(HfConfig.read(model("m", absent), DType.BF16).kvHeads()).isEqualTo(32);
    }

    @Test
    void noRopeThetaAnywhereIs10000() throws Exception {
        String json = MISTRAL_HUB.replace("  \"rope_theta\": 10000.0,\n", "");
        assertThat(json).doesNotContain("rope_theta");
        assertThat(HfConfig.read(model("m", json), DType.BF16).ropeTheta()).isEqualTo(10000.0);
        String agreeing = MISTRAL_V5.replace("\"sliding_window\": null", "\"rope_theta\": 1000000.0, \"sliding_window\": null");
        assertThat(HfConfig.read(model("m", agreeing), DType.BF16).ropeTheta()).isEqualTo(1000000.0);
    }

    @Test
    void theModelIsNamedAfterItsDirectory() {
        assertThat(ModelName.of(Path.of("/models/Qwen2.5-0.5B"))).isEqualTo("Qwen2.5-0.5B");
        assertThat(ModelName.of(Path.of("/"))).isEqualTo("model");
        assertThat(ModelName.of(Path.of("/models/a\u0001b"))).isEqualTo("a_b");
        assertThat(ModelName.of(Path.of("/models/" + "x".repeat(300)))).hasSize(200);
        assertThat(ModelName.of(Path.of("/models/m/sub/.."))).isEqualTo("m");
    }

    // ---- refusals: each names the key, and its line:column where it has one

    @Test
    void anotherArchitectureIsRefusedByNameListingTheSupportedOnes() throws Exception {
        String json = MISTRAL_HUB.replace("MistralForCausalLM", "GemmaForCausalLM");
        Path dir = model("m", json);
        String supported = "LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM, Qwen2MoeForCausalLM,"
                + " Qwen3MoeForCausalLM, MixtralForCausalLM";
        assertThatThrownBy(() -> HfConfig.read(dir, DType.BF16)).isInstanceOf(ModelSpecException.class)
                .hasMessage(dir.resolve("config.json") + ":" + line(json, "GemmaForCausalLM") + ":5: architecture"
                        + " \"GemmaForCausalLM\" is not supported; stagecheck reads " + supported);
        refused(MISTRAL_HUB.replace("\"MistralForCausalLM\"", "\"MistralForCausalLM\", \"LlamaForCausalLM\""),
                "\"architectures\" must be a one-element array of a string naming one of [" + supported + "], not an array of 2 elements");
        refused(MISTRAL_HUB.replace("\"MistralForCausalLM\"", "7"), "not an array holding a number");
        refused(MISTRAL_HUB.replace("\"model_type\": \"mistral\"", "\"model_type\": \"llama\""),
                "\"model_type\" is \"llama\" but the architecture MistralForCausalLM is model type \"mistral\"");
        refused(MISTRAL_HUB.replace("  \"architectures\": [\n    \"MistralForCausalLM\"\n  ],\n", ""),
                "config.json has no \"architectures\"");
    }

    @Test
    void unknownKeysAreRefusedByNameAndPosition() throws Exception {
        for (String key : new String[] {"quantization_config", "attn_logit_softcapping", "partial_rotary_factor",
                "num_experts", "some_future_switch"}) {
            String json = QWEN3_HUB.replace("  \"use_cache\": true,\n", "  \"use_cache\": true,\n  \"" + key + "\": 1,\n");
            Path dir = model("m", json);
            assertThatThrownBy(() -> HfConfig.read(dir, DType.BF16)).isInstanceOf(ModelSpecException.class)
                    .hasMessageStartingWith(dir.resolve("config.json") + ":" + line(json, key) + ":" + (key.length() + 7)
                            + ": unknown key \"" + key + "\"")
                    .hasMessageContaining("stagecheck does not implement it for Qwen3ForCausalLM");
        }
        // a key understood by one family is unknown to another
        refused(MISTRAL_HUB.replace("\"use_cache\": true", "\"use_cache\": true, \"attention_bias\": false"),
                "unknown key \"attention_bias\"");
        refused(QWEN3_HUB.replace("\"use_cache\": true", "\"use_cache\": true, \"mlp_bias\": false"),
                "unknown key \"mlp_bias\"");
    }

    @Test
    void inertKeysAreInertOnlyAtTheirInertValues() throws Exception {
        refused(LLAMA31_HUB.replace("\"pretraining_tp\": 1", "\"pretraining_tp\": 2"),
                "\"pretraining_tp\" must be 1 (other values are not implemented), not 2");
        refused(QWEN25_HUB.replace("\"use_mrope\": false", "\"use_mrope\": true"),
                "\"use_mrope\" must be false (true is not implemented), not true");
        refused(QWEN25_HUB.replace("\"torch_dtype\": \"bfloat16\"", "\"torch_dtype\": 16"),
                "\"torch_dtype\" must be a string or null, not 16");
        refused(LLAMA31_HUB.replace("[128001, 128008, 128009]", "[128001, \"x\"]"),
                "\"eos_token_id\" must be an integer, an array of integers or null, not an array");
    }

    @Test
    void wrongTypesAreRefusedWithTheirPosition() throws Exception {
        String json = QWEN25_HUB.replace("\"hidden_size\": 896", "\"hidden_size\": \"896\"");
        Path dir = model("m", json);
        assertThatThrownBy(() -> HfConfig.read(dir, DType.BF16))
                .hasMessage(dir.resolve("config.json") + ":" + line(json, "hidden_size") + ":18: \"hidden_size\" must be an"
                        + " integer, not a string");
        refused(QWEN25_HUB.replace("\"tie_word_embeddings\": true", "\"tie_word_embeddings\": 1"),
                "\"tie_word_embeddings\" must be true or false, not a number");
        refused(QWEN25_HUB.replace("\"rms_norm_eps\": 1e-06", "\"rms_norm_eps\": null"),
                "\"rms_norm_eps\" must be a number, not null");
        refused(QWEN25_HUB.replace("\"num_hidden_layers\": 24", "\"num_hidden_layers\": 2.5"),
                "\"num_hidden_layers\" must be an integer, not a number");
        refused(QWEN25_HUB.replace("\"num_attention_heads\": 14", "\"num_attention_heads\": 0"),
                "\"num_attention_heads\" must be at least 1, not 0");
        refused(LLAMA31_HUB.replace("\"factor\": 8.0", "\"factor\": \"8\""),
                "\"factor\" in \"rope_scaling\" must be a number, not a string");
    }

    @Test
    void missingSizesAreRefusedRatherThanTakenFromClassDefaults() throws Exception {
        refused(QWEN25_HUB.replace("  \"vocab_size\": 151936\n", "  \"vocab_size_typo\": 151936\n"),
                "unknown key \"vocab_size_typo\"");
        refused(QWEN25_HUB.replace(",\n  \"vocab_size\": 151936\n", "\n"), "config.json has no \"vocab_size\"");
        refused(MISTRAL_HUB.replace("  \"num_key_value_heads\": 8,\n", ""),
                "config.json has no \"num_key_value_heads\"; MistralForCausalLM's class default");
        refused(QWEN25_HUB.replace("  \"num_key_value_heads\": 2,\n", ""),
                "config.json has no \"num_key_value_heads\"; Qwen2ForCausalLM's class default");
        refused(QWEN3_HUB.replace("  \"head_dim\": 128,\n", ""),
                "config.json has no \"head_dim\"; Qwen3's class default is 128");
        refused(QWEN25_HUB.replace("\"num_attention_heads\": 14", "\"num_attention_heads\": 10"),
                "config.json has no \"head_dim\" and \"hidden_size\" 896 is not a multiple of \"num_attention_heads\" 10");
    }

    @Test
    void onlySiluIsImplemented() throws Exception {
        refused(LLAMA31_HUB.replace("\"hidden_act\": \"silu\"", "\"hidden_act\": \"gelu\""),
                "\"hidden_act\" is \"gelu\"; stagecheck implements only \"silu\"");
    }

    @Test
    void otherRotaryTypesAreRefusedByName() throws Exception {
        for (String type : new String[] {"linear", "dynamic", "yarn", "longrope"}) {
            String json = QWEN25_HUB.replace("\"rope_theta\": 1000000.0,",
                    "\"rope_theta\": 1000000.0,\n  \"rope_scaling\": {\"factor\": 4.0, \"type\": \"" + type + "\"},");
            Path dir = model("m", json);
            assertThatThrownBy(() -> HfConfig.read(dir, DType.BF16))
                    .hasMessage(dir.resolve("config.json") + ":" + line(json, "rope_scaling") + ":43"
                            + ": rotary type \"" + type + "\" is not implemented by stagecheck; it implements \"default\" and \"llama3\"");
        }
        refused(QWEN3_V5.replace("\"rope_type\": \"default\"", "\"rope_type\": \"yarn\", \"factor\": 4.0"),
                "rotary type \"yarn\" is not implemented by stagecheck");
        refused(LLAMA31_HUB.replace("\"rope_type\": \"llama3\"", "\"rope_type\": \"llama3\", \"attention_factor\": 1.0"),
                "unknown key \"attention_factor\" in \"rope_scaling\"");
        refused(QWEN3_V5.replace("\"rope_type\": \"default\"", "\"rope_type\": \"default\", \"partial_rotary_factor\": 0.5"),
                "unknown key \"partial_rotary_factor\" in \"rope_parameters\"");
        refused(LLAMA31_HUB.replace("\"rope_type\": \"llama3\"", "\"rope_type\": \"llama3\", \"type\": \"linear\""),
                "\"rope_type\" is \"llama3\" but \"type\" is \"linear\"");
        refused(LLAMA31_HUB.replace("\"high_freq_factor\": 4.0", "\"high_freq_factor\": 0.5"),
                "llama3 rope scaling needs");
    }

    @Test
    void twoDifferentThetasAreRefused() throws Exception {
        refused(QWEN3_V5.replace("\"sliding_window\": null", "\"rope_theta\": 10000, \"sliding_window\": null"),
                "\"rope_theta\" is 10000.0 at the top level but 1000000.0 in \"rope_parameters\"");
        refused(LLAMA31_HUB.replace("\"rope_theta\": 500000.0,", "\"rope_theta\": 500000.0, \"rope_parameters\": {\"rope_type\": \"default\"},"),
                "\"rope_scaling\" and \"rope_parameters\" describe different rotary rescalings");
    }

    @Test
    void qwenWindowsAreRefusedWhenSwitchedOn() throws Exception {
        refused(QWEN25_HUB.replace("\"use_sliding_window\": false", "\"use_sliding_window\": true"),
                "\"use_sliding_window\": true is not implemented by stagecheck: Qwen2ForCausalLM then slides the window"
                        + " over the layers from \"max_window_layers\" on");
        refused(QWEN3_HUB.replace("\"use_sliding_window\": false", "\"use_sliding_window\": true"),
                "\"use_sliding_window\": true is not implemented");
        String sliding = QWEN25_V5.replaceFirst("\"full_attention\"", "\"sliding_attention\"");
        refused(sliding, "\"layer_types\"[0] is \"sliding_attention\"; stagecheck implements only \"full_attention\" layers");
        refused(QWEN25_V5.replace("\"num_hidden_layers\": 4", "\"num_hidden_layers\": 5"),
                "\"layer_types\" names 4 layers but \"num_hidden_layers\" is 5");
        refused(QWEN25_HUB.replace("\"sliding_window\": 32768", "\"sliding_window\": \"32768\""),
                "\"sliding_window\" must be an integer, not a string");
        refused(MISTRAL_HUB.replace("\"sliding_window\": 4096", "\"sliding_window\": 0"),
                "\"sliding_window\" must be at least 1, not 0");
        refused(MISTRAL_HUB.replace("\"use_cache\": true", "\"use_cache\": true, \"layer_types\": []"),
                "unknown key \"layer_types\"");
    }

    /**
     * The model spec's own refusals that one key decides name that key at its line:column, not the
     * spec's field (kvHeads, normEps) without a place.
     */
    @Test
    void sizesModelSpecRefusesAreReportedAtTheirKeyInConfigJson() throws Exception {
        String kv = QWEN25_HUB.replace("\"num_key_value_heads\": 2", "\"num_key_value_heads\": 4");
        refusedAt(kv, "\"num_key_value_heads\": 4", "\"num_attention_heads\" 14 is not a multiple of \"num_key_value_heads\" 4");
        String layers = QWEN25_HUB.replace("\"num_hidden_layers\": 24", "\"num_hidden_layers\": 1000");
        refusedAt(layers, "\"num_hidden_layers\": 1000", "\"num_hidden_layers\" is 1000; at most 256 are authored");
        String eps = QWEN25_HUB.replace("\"rms_norm_eps\": 1e-06", "\"rms_norm_eps\": 0");
        refusedAt(eps, "\"rms_norm_eps\": 0", "\"rms_norm_eps\" must be above 0, not 0.0");
        String negativeEps = QWEN25_HUB.replace("\"rms_norm_eps\": 1e-06", "\"rms_norm_eps\": -1");
        refusedAt(negativeEps, "\"rms_norm_eps\": -1", "\"rms_norm_eps\" must be above 0, not -1.0");
        String oddHead = QWEN25_HUB.replace("\"num_key_value_heads\": 2", "\"num_key_value_heads\": 2, \"head_dim\": 7");
        refusedAt(oddHead, "\"head_dim\": 7", "\"head_dim\" is 7, odd; the rotary embedding rotates pairs");
    }

    /** Refused with a message at the line of {@code at} in {@code config}, holding {@code part}. */
    private void refusedAt(String config, String at, String part) throws IOException {
        assertThat(config).contains(at);
        Path dir = model("m", config);
        assertThatThrownBy(() -> HfConfig.read(dir, DType.BF16)).isInstanceOf(ModelSpecException.class)
                .hasMessageStartingWith(dir.resolve("config.json") + ":" + line(config, at) + ":")
                .hasMessageContaining(part).hasMessageNotContaining("model spec");
    }

    @Test
    void unreadableFilesGetAClearMessage() throws Exception {
        Path empty = tmp.resolve("empty");
        Files.createDirectories(empty);
        assertThatThrownBy(() -> HfConfig.read(empty, DType.BF16)).isInstanceOf(ModelSpecException.class)
                .hasMessageStartingWith(empty.resolve("config.json") + ": no such file");
        Path bad = model("bad", "{\"architectures\": [\"LlamaForCausalLM\"],");
        assertThatThrownBy(() -> HfConfig.read(bad, DType.BF16)).isInstanceOf(ModelSpecException.class)
                .hasMessageStartingWith(bad.resolve("config.json") + ":1:");
        Path array = model("array", "[1]");
        assertThatThrownBy(() -> HfConfig.read(array, DType.BF16))
                .hasMessage(array.resolve("config.json") + ":1:1: config.json is a JSON object, not an array");
        Path duplicate = model("dup", "{\"architectures\": [\"LlamaForCausalLM\"], \"vocab_size\": 1, \"vocab_size\": 2}");
        assertThatThrownBy(() -> HfConfig.read(duplicate, DType.BF16)).hasMessageContaining("vocab_size");
    }

    // ---- helpers

    private int dirs;

    /** A model directory named {@code name} (made unique) holding {@code config} as its config.json. */
    private Path model(String name, String config) throws IOException {
        Path dir = tmp.resolve("d" + dirs++).resolve(name);
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("config.json"), config);
        return dir;
    }

    /** Asserts that reading {@code config} is refused with a message holding {@code part}, after the file name. */
    private void refused(String config, String part) throws IOException {
        Path dir = model("m", config);
        assertThatThrownBy(() -> HfConfig.read(dir, DType.BF16)).isInstanceOf(ModelSpecException.class)
                .hasMessageStartingWith(dir.resolve("config.json") + ":")
                .hasMessageContaining(part);
    }

    /** The 1-based line of the first occurrence of {@code text} in {@code json}. */
    private static int line(String json, String text) {
        int at = json.indexOf(text);
        assertThat(at).as("%s in the config", text).isNotNegative();
        return (int) json.substring(0, at).chars().filter(c -> c == '\n').count() + 1;
    }
}
