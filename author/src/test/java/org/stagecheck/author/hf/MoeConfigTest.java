package org.stagecheck.author.hf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.author.Family;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.author.ModelSpecException;
import org.stagecheck.author.Moe;
import org.stagecheck.spec.ir.DType;

/** The mixture-of-experts keys of config.json, with the class defaults that differ from the dense families'. */
class MoeConfigTest {
    @TempDir
    Path dir;

    private ModelSpec read(String json) throws Exception {
        Files.writeString(dir.resolve("config.json"), json);
        return HfConfig.read(dir, DType.BF16);
    }

    private static final String SIZES = "\"vocab_size\": 40, \"hidden_size\": 32, \"num_hidden_layers\": 4, \"num_attention_heads\": 4,"
            + " \"num_key_value_heads\": 2, \"intermediate_size\": 48, \"rms_norm_eps\": 1e-6, \"rope_theta\": 10000.0";

    @Test
    void qwen3MoeReadsItsExpertsAndTakesHeadDimFromTheWidth() throws Exception {
        ModelSpec spec = read("{\"architectures\": [\"Qwen3MoeForCausalLM\"], " + SIZES + ", \"num_experts\": 8,"
                + " \"num_experts_per_tok\": 2, \"moe_intermediate_size\": 16, \"norm_topk_prob\": true, \"decoder_sparse_step\": 2,"
                + " \"mlp_only_layers\": [3], \"router_aux_loss_coef\": 0.001, \"output_router_logits\": false}");
        assertThat(spec.arch().family()).isEqualTo(Family.QWEN3_MOE);
        assertThat(spec.headDim()).isEqualTo(8);
        assertThat(spec.arch().qkNorm()).isTrue();
        Moe moe = spec.arch().moe();
        assertThat(moe).isEqualTo(new Moe(8, 2, 16, true, 2, List.of(3), 0));
        assertThat(List.of(moe.sparse(0), moe.sparse(1), moe.sparse(2), moe.sparse(3))).containsExactly(false, true, false, false);
    }

    @Test
    void qwen2MoeHasQkvBiasesAndASharedExpert() throws Exception {
        ModelSpec spec = read("{\"architectures\": [\"Qwen2MoeForCausalLM\"], " + SIZES + ", \"num_experts\": 4,"
                + " \"num_experts_per_tok\": 2, \"moe_intermediate_size\": 16, \"shared_expert_intermediate_size\": 40}");
        assertThat(spec.arch().qkvBias()).isTrue();
        assertThat(spec.arch().moe().sharedFfn()).isEqualTo(40);
        assertThat(spec.arch().moe().normTopK()).isFalse();
    }

    @Test
    void mixtralIsAlwaysRenormalisedWithItsOwnThetaAndNoWindowByDefault() throws Exception {
        ModelSpec spec = read("{\"architectures\": [\"MixtralForCausalLM\"], \"vocab_size\": 40, \"hidden_size\": 32,"
                + " \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"num_key_value_heads\": 2, \"intermediate_size\": 48,"
                + " \"num_local_experts\": 4, \"num_experts_per_tok\": 2, \"router_jitter_noise\": 0.0}");
        assertThat(spec.ropeTheta()).isEqualTo(1e6);
        assertThat(spec.arch().slidingWindow()).isZero();
        assertThat(spec.arch().moe()).isEqualTo(new Moe(4, 2, 48, true, 1, List.of(), 0));
    }

    @Test
    void missingOrDisagreeingExpertCountsAreRefused() {
        assertThatThrownBy(() -> read("{\"architectures\": [\"Qwen3MoeForCausalLM\"], " + SIZES
                + ", \"num_experts_per_tok\": 2, \"moe_intermediate_size\": 16}"))
                .isInstanceOf(ModelSpecException.class).hasMessageContaining("num_experts");
        assertThatThrownBy(() -> read("{\"architectures\": [\"Qwen3MoeForCausalLM\"], " + SIZES + ", \"num_experts\": 8,"
                + " \"num_local_experts\": 4, \"num_experts_per_tok\": 2, \"moe_intermediate_size\": 16}"))
                .isInstanceOf(ModelSpecException.class).hasMessageContaining("disagrees");
        assertThatThrownBy(() -> read("{\"architectures\": [\"MixtralForCausalLM\"], " + SIZES + ", \"num_local_experts\": 4,"
                + " \"num_experts_per_tok\": 5}")).isInstanceOf(ModelSpecException.class).hasMessageContaining("topK");
        assertThatThrownBy(() -> read("{\"architectures\": [\"LlamaForCausalLM\"], " + SIZES + ", \"num_experts\": 4}"))
                .isInstanceOf(ModelSpecException.class).hasMessageContaining("num_experts").hasMessageContaining("mixture of experts");
    }
}
