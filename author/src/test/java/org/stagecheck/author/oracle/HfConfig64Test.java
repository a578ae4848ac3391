package org.stagecheck.author.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.stagecheck.author.oracle.HfConfig64.Family;

/** The config keys whose absence or style decides a shape or a window (FAMILIES.md). */
class HfConfig64Test {
    private static final String SHAPES = "\"vocab_size\": 5, \"hidden_size\": 8, \"intermediate_size\": 4, \"num_hidden_layers\": 1,"
            + " \"num_attention_heads\": 4";

    private static HfConfig64 parse(String architecture, String extra) throws Exception {
        String json = "{\"architectures\": [\"" + architecture + "\"], " + SHAPES + (extra.isEmpty() ? "" : ", " + extra) + "}";
        return HfConfig64.parse(new ObjectMapper().readTree(json), architecture);
    }

    @Test
    void headDimIsTheKeyWhenGivenElseHiddenOverHeadsExceptQwen3sClassDefault() throws Exception {
        assertThat(parse("LlamaForCausalLM", "\"head_dim\": 6").headDim()).isEqualTo(6);
        assertThat(parse("LlamaForCausalLM", "\"head_dim\": null").headDim()).isEqualTo(2);
        assertThat(parse("MistralForCausalLM", "\"num_key_value_heads\": 2").headDim()).isEqualTo(2);
        assertThat(parse("Qwen3ForCausalLM", "\"num_key_value_heads\": 2").headDim()).isEqualTo(128);
    }

    @Test
    void keyValueHeadsNullMeansAllAndAbsentTakesTheClassDefault() throws Exception {
        assertThat(parse("LlamaForCausalLM", "").kvHeads()).isEqualTo(4);
        assertThat(parse("Qwen2ForCausalLM", "\"num_key_value_heads\": null").kvHeads()).isEqualTo(4);
        assertThat(parse("Qwen2ForCausalLM", "\"num_key_value_heads\": 2").kvHeads()).isEqualTo(2);
        // Mistral's class default is 8, Qwen2's 32: more than these 4 query heads
        assertThatThrownBy(() -> parse("MistralForCausalLM", "")).isInstanceOf(OracleInputException.class)
                .hasMessageContaining("num_attention_heads 4 is not a multiple of num_key_value_heads 8");
        assertThatThrownBy(() -> parse("Qwen2ForCausalLM", "")).isInstanceOf(OracleInputException.class)
                .hasMessageContaining("num_attention_heads 4 is not a multiple of num_key_value_heads 32");
    }

    @Test
    void onlyMistralHasAWindowAndQwenWindowsAreOffUnlessSwitchedOn() throws Exception {
        assertThat(parse("MistralForCausalLM", "\"num_key_value_heads\": 2").slidingWindow()).isEqualTo(4096);
        assertThat(parse("MistralForCausalLM", "\"num_key_value_heads\": 2, \"sliding_window\": null").slidingWindow()).isZero();
        assertThat(parse("MistralForCausalLM", "\"num_key_value_heads\": 2, \"sliding_window\": 3").slidingWindow()).isEqualTo(3);
        assertThat(parse("Qwen2ForCausalLM", "\"num_key_value_heads\": 2, \"sliding_window\": 32768, \"use_sliding_window\": false").slidingWindow()).isZero();
        assertThat(parse("Qwen2ForCausalLM", "\"num_key_value_heads\": 2, \"sliding_window\": null, \"layer_types\": [\"full_attention\"]").slidingWindow()).isZero();
        assertThatThrownBy(() -> parse("Qwen2ForCausalLM", "\"num_key_value_heads\": 2, \"layer_types\": [\"sliding_attention\"]"))
                .hasMessageContaining("layer_types has \"sliding_attention\"");
    }

    @Test
    void eachFamilyHasItsOwnBiasesAndNorms() throws Exception {
        HfConfig64 qwen2 = parse("Qwen2ForCausalLM", "\"num_key_value_heads\": 2, \"attention_bias\": false");
        assertThat(qwen2.family()).isEqualTo(Family.QWEN2);
        assertThat(qwen2.qkvBias()).isTrue();
        assertThat(qwen2.oBias()).isFalse();
        HfConfig64 llama = parse("LlamaForCausalLM", "\"attention_bias\": true, \"mlp_bias\": true");
        assertThat(llama.qkvBias() && llama.oBias() && llama.mlpBias()).isTrue();
        HfConfig64 qwen3 = parse("Qwen3ForCausalLM", "\"num_key_value_heads\": 2, \"head_dim\": 2");
        assertThat(qwen3.qkNorm()).isTrue();
        assertThat(qwen3.qkvBias() || qwen3.oBias() || qwen3.mlpBias()).isFalse();
        assertThat(qwen3.rmsNormEps()).isEqualTo(1e-6);
        assertThat(parse("MistralForCausalLM", "\"num_key_value_heads\": 2, \"attention_bias\": true").qkvBias()).isFalse();
        assertThatThrownBy(() -> parse("GemmaForCausalLM", "")).isInstanceOf(OracleInputException.class)
                .hasMessageContaining("is none of LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM");
    }
}
