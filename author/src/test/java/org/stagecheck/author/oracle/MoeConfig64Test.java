package org.stagecheck.author.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.stagecheck.author.oracle.HfConfig64.Family;

/** The MoE families' config keys in both styles, their class defaults, and what is refused (FAMILIES.md). */
class MoeConfig64Test {
    private static final String SHAPES = "\"vocab_size\": 5, \"hidden_size\": 8, \"intermediate_size\": 6, \"num_hidden_layers\": 4,"
            + " \"num_attention_heads\": 4, \"num_key_value_heads\": 2, \"num_experts_per_tok\": 2";

    private static HfConfig64 parse(String architecture, String extra) throws Exception {
        String json = "{\"architectures\": [\"" + architecture + "\"], " + SHAPES + (extra.isEmpty() ? "" : ", " + extra) + "}";
        return HfConfig64.parse(new ObjectMapper().readTree(json), architecture);
    }

    @Test
    void qwen3MoeCountsExpertsUnderEitherSpellingAndRefusesDisagreement() throws Exception {
        String rest = "\"moe_intermediate_size\": 3";
        HfConfig64 hub = parse("Qwen3MoeForCausalLM", "\"num_experts\": 5, " + rest);
        HfConfig64 v5 = parse("Qwen3MoeForCausalLM", "\"num_local_experts\": 5, " + rest);
        assertThat(hub.family()).isEqualTo(Family.QWEN3_MOE);
        assertThat(hub.moe()).isEqualTo(v5.moe());
        assertThat(hub.moe()).isEqualTo(new MoeConfig64(5, 2, 3, false, 1, java.util.List.of(), 0));
        assertThat(parse("Qwen3MoeForCausalLM", "\"num_experts\": 5, \"num_local_experts\": 5, " + rest).moe().experts()).isEqualTo(5);
        assertThatThrownBy(() -> parse("Qwen3MoeForCausalLM", "\"num_experts\": 5, \"num_local_experts\": 6, " + rest))
                .isInstanceOf(OracleInputException.class).hasMessageContaining("num_experts 5 and num_local_experts 6 disagree");
        assertThatThrownBy(() -> parse("Qwen3MoeForCausalLM", rest)).isInstanceOf(OracleInputException.class)
                .hasMessageContaining("num_experts (or num_local_experts) is missing");
        assertThatThrownBy(() -> parse("Qwen3MoeForCausalLM", "\"num_experts\": 1, " + rest)).isInstanceOf(OracleInputException.class)
                .hasMessageContaining("num_experts_per_tok 2 is more than the 1 experts");
        assertThatThrownBy(() -> parse("Qwen3MoeForCausalLM", "\"num_experts\": 5")).isInstanceOf(OracleInputException.class)
                .hasMessageContaining("moe_intermediate_size is missing");
    }

    /** Qwen3-MoE's attention reads head_dim with a hidden/heads fallback, unlike Qwen3's class default of 128; q/k norms as Qwen3. */
    @Test
    void qwen3MoeHasQwen3sNormsButNoHeadDimDefault() throws Exception {
        HfConfig64 c = parse("Qwen3MoeForCausalLM", "\"num_experts\": 4, \"moe_intermediate_size\": 3");
        assertThat(c.headDim()).isEqualTo(2);
        assertThat(c.qkNorm()).isTrue();
        assertThat(c.qkvBias() || c.oBias()).isFalse();
        HfConfig64 biased = parse("Qwen3MoeForCausalLM", "\"num_experts\": 4, \"moe_intermediate_size\": 3, \"attention_bias\": true, \"head_dim\": 6");
        assertThat(biased.qkvBias() && biased.oBias()).isTrue();
        assertThat(biased.headDim()).isEqualTo(6);
    }

    /** (l + 1) % step == 0 and l not listed: with step 2 and [3], layer 1 only; l % step would give 0 and 2. */
    @Test
    void sparseLayersFollowTheStepAndTheDenseList() throws Exception {
        HfConfig64 c = parse("Qwen3MoeForCausalLM", "\"num_experts\": 4, \"moe_intermediate_size\": 3, \"norm_topk_prob\": true,"
                + " \"decoder_sparse_step\": 2, \"mlp_only_layers\": [3]");
        assertThat(IntStream.range(0, 4).filter(c.moe()::isSparse).boxed().toList()).containsExactly(1);
        assertThat(c.moe().normTopkProb()).isTrue();
        HfConfig64 every = parse("Qwen3MoeForCausalLM", "\"num_experts\": 4, \"moe_intermediate_size\": 3, \"mlp_only_layers\": null,"
                + " \"decoder_sparse_step\": null");
        assertThat(IntStream.range(0, 4).filter(every.moe()::isSparse).count()).isEqualTo(4);
        assertThatThrownBy(() -> parse("Qwen3MoeForCausalLM", "\"num_experts\": 4, \"moe_intermediate_size\": 3, \"mlp_only_layers\": [4]"))
                .isInstanceOf(OracleInputException.class).hasMessageContaining("mlp_only_layers [4] has 4, not a layer index below 4");
        assertThatThrownBy(() -> parse("Qwen3MoeForCausalLM", "\"num_experts\": 4, \"moe_intermediate_size\": 3, \"decoder_sparse_step\": 0"))
                .isInstanceOf(OracleInputException.class).hasMessageContaining("decoder_sparse_step is 0");
    }

    @Test
    void qwen2MoeHasQkvBiasUnlessV5SaysOtherwiseAndNeedsItsSharedExpertWidth() throws Exception {
        String rest = "\"num_experts\": 4, \"moe_intermediate_size\": 3, \"shared_expert_intermediate_size\": 7";
        HfConfig64 hub = parse("Qwen2MoeForCausalLM", rest + ", \"use_sliding_window\": false, \"sliding_window\": 32768");
        assertThat(hub.qkvBias()).isTrue();
        assertThat(hub.oBias() || hub.qkNorm()).isFalse();
        assertThat(hub.moe().sharedIntermediate()).isEqualTo(7);
        assertThat(hub.slidingWindow()).isZero();
        HfConfig64 v5 = parse("Qwen2MoeForCausalLM", rest + ", \"qkv_bias\": false, \"sliding_window\": 0, \"layer_types\": [\"full_attention\","
                + " \"full_attention\", \"full_attention\", \"full_attention\"]");
        assertThat(v5.qkvBias()).isFalse();
        assertThat(v5.slidingWindow()).isZero();
        assertThatThrownBy(() -> parse("Qwen2MoeForCausalLM", "\"num_experts\": 4, \"moe_intermediate_size\": 3"))
                .isInstanceOf(OracleInputException.class).hasMessageContaining("shared_expert_intermediate_size is missing");
        assertThatThrownBy(() -> parse("Qwen2MoeForCausalLM", rest + ", \"use_sliding_window\": true"))
                .isInstanceOf(OracleInputException.class).hasMessageContaining("use_sliding_window true is refused");
    }

    @Test
    void mixtralAlwaysRenormalisesUsesIntermediateSizeAndDefaultsToNoWindowAndTheta1e6() throws Exception {
        HfConfig64 c = parse("MixtralForCausalLM", "\"num_local_experts\": 4, \"norm_topk_prob\": false");
        assertThat(c.moe()).isEqualTo(new MoeConfig64(4, 2, 6, true, 1, java.util.List.of(), 0));
        assertThat(c.slidingWindow()).isZero(); // MixtralConfig's default is None, unlike Mistral's 4096
        assertThat(c.ropeTheta()).isEqualTo(1e6);
        assertThat(c.qkvBias() || c.oBias() || c.qkNorm()).isFalse();
        assertThat(parse("MixtralForCausalLM", "\"num_local_experts\": 4, \"sliding_window\": 3, \"rope_theta\": 10000.0").slidingWindow()).isEqualTo(3);
        assertThat(parse("MixtralForCausalLM", "\"num_local_experts\": 4, \"head_dim\": null").headDim()).isEqualTo(2);
        assertThat(parse("MistralForCausalLM", "").ropeTheta()).isEqualTo(10000.0);
    }

    @Test
    void classDefaultKeyValueHeadsDifferPerFamily() throws Exception {
        String noKv = "{\"architectures\": [\"%s\"], \"vocab_size\": 5, \"hidden_size\": 64, \"intermediate_size\": 6, \"num_hidden_layers\": 1,"
                + " \"num_attention_heads\": 32, \"num_experts\": 4, \"num_experts_per_tok\": 1, \"moe_intermediate_size\": 2,"
                + " \"shared_expert_intermediate_size\": 2}";
        ObjectMapper json = new ObjectMapper();
        assertThat(HfConfig64.parse(json.readTree(noKv.formatted("Qwen3MoeForCausalLM")), "q3").kvHeads()).isEqualTo(4);
        assertThat(HfConfig64.parse(json.readTree(noKv.formatted("Qwen2MoeForCausalLM")), "q2").kvHeads()).isEqualTo(16);
        assertThat(HfConfig64.parse(json.readTree(noKv.formatted("MixtralForCausalLM")), "m").kvHeads()).isEqualTo(8);
        assertThat(HfConfig64.parse(json.readTree(noKv.formatted("Qwen3MoeForCausalLM")), "q3").moe()).isNotNull();
        assertThat(HfConfig64.parse(json.readTree(noKv.formatted("LlamaForCausalLM")), "llama").moe()).isNull();
    }
}
