package org.stagecheck.author.synth;

import java.util.List;

/**
 * The mixture-of-experts settings of a synthetic checkpoint, named after config.json's keys
 * (FAMILIES.md). Layer {@code l} is sparse iff {@code l} is not in {@code mlpOnlyLayers} and
 * {@code (l + 1) % decoderSparseStep == 0}; the other layers keep the dense MLP of {@code intermediate_size}.
 *
 * @param numExperts               {@code num_experts} (Qwen3-MoE v5 and Mixtral: {@code num_local_experts})
 * @param expertsPerToken          {@code num_experts_per_tok}, the k of the top-k
 * @param moeIntermediate          each expert's width: {@code moe_intermediate_size}; Mixtral's experts are {@code intermediate_size} wide
 * @param normTopkProb             {@code norm_topk_prob}: divide the k weights by their sum (Mixtral always does, without the key)
 * @param decoderSparseStep        {@code decoder_sparse_step}
 * @param mlpOnlyLayers            {@code mlp_only_layers}: layers kept dense whatever the step
 * @param sharedExpertIntermediate Qwen2-MoE's {@code shared_expert_intermediate_size}; 0 for the families without a shared expert
 */
public record SyntheticMoe(int numExperts, int expertsPerToken, int moeIntermediate, boolean normTopkProb, int decoderSparseStep,
        List<Integer> mlpOnlyLayers, int sharedExpertIntermediate) {

    public SyntheticMoe {
        mlpOnlyLayers = List.copyOf(mlpOnlyLayers);
        if (numExperts <= 0 || expertsPerToken <= 0 || expertsPerToken > numExperts) {
            throw new IllegalArgumentException("a mixture of experts needs 0 < expertsPerToken <= numExperts, not " + expertsPerToken + " of "
                    + numExperts);
        }
        if (moeIntermediate <= 0 || decoderSparseStep <= 0 || sharedExpertIntermediate < 0) {
            throw new IllegalArgumentException("moeIntermediate and decoderSparseStep must be positive and sharedExpertIntermediate not negative,"
                    + " not " + moeIntermediate + ", " + decoderSparseStep + " and " + sharedExpertIntermediate);
        }
        if (mlpOnlyLayers.stream().distinct().count() != mlpOnlyLayers.size()) {
            throw new IllegalArgumentException("mlpOnlyLayers " + mlpOnlyLayers + " repeats a layer");
        }
    }

    /** Whether layer {@code layer} is a mixture of experts rather than a dense MLP. */
    public boolean isSparse(int layer) {
        return !mlpOnlyLayers.contains(layer) && (layer + 1) % decoderSparseStep == 0;
    }
}
