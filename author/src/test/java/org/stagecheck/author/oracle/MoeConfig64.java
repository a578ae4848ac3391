package org.stagecheck.author.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * The mixture-of-experts keys of a Qwen3-MoE, Qwen2-MoE or Mixtral config.json (FAMILIES.md).
 * Layer {@code l} is sparse iff {@code l} is not in {@code mlpOnlyLayers} and
 * {@code (l + 1) % sparseStep == 0} ({@code Qwen3MoeDecoderLayer}); Mixtral's layers are all sparse.
 *
 * @param experts            {@code num_experts} or {@code num_local_experts} (either spelling, in every family)
 * @param topK               {@code num_experts_per_tok}
 * @param expertIntermediate each expert's width: Qwen {@code moe_intermediate_size}, Mixtral {@code intermediate_size}
 * @param normTopkProb       divide the k weights by their sum: Qwen {@code norm_topk_prob} (absent: false), Mixtral always
 * @param sparseStep         {@code decoder_sparse_step} (absent: 1)
 * @param mlpOnlyLayers      {@code mlp_only_layers} (absent or null: none)
 * @param sharedIntermediate Qwen2-MoE's {@code shared_expert_intermediate_size}; 0 in the families without a shared expert
 */
public record MoeConfig64(int experts, int topK, int expertIntermediate, boolean normTopkProb, int sparseStep, List<Integer> mlpOnlyLayers,
        int sharedIntermediate) {

    public MoeConfig64 {
        mlpOnlyLayers = List.copyOf(mlpOnlyLayers);
    }

    public boolean isSparse(int layer) {
        return !mlpOnlyLayers.contains(layer) && (layer + 1) % sparseStep == 0;
    }

    /**
     * The MoE keys of a family that has them. Shape keys (expert count, k, the widths) are required
     * rather than taken from the class defaults (128 or 60 experts, k 8 or 4, ...), as for the dense
     * shape keys; a count given under both spellings must agree.
     */
    static MoeConfig64 parse(ConfigKeys keys, HfConfig64.Family family, int layers, int intermediate) {
        int experts = expertCount(keys);
        int topK = keys.requiredPositiveInt("num_experts_per_tok");
        if (topK > experts) {
            throw new OracleInputException(keys.where() + ": num_experts_per_tok " + topK + " is more than the " + experts + " experts");
        }
        return switch (family) {
            case MIXTRAL -> new MoeConfig64(experts, topK, intermediate, true, 1, List.of(), 0);
            case QWEN3_MOE, QWEN2_MOE -> new MoeConfig64(
                    experts,
                    topK,
                    keys.requiredPositiveInt("moe_intermediate_size"),
                    keys.bool("norm_topk_prob", false),
                    keys.isNonNull("decoder_sparse_step") ? keys.requiredPositiveInt("decoder_sparse_step") : 1,
                    mlpOnlyLayers(keys, layers),
                    family == HfConfig64.Family.QWEN2_MOE ? keys.requiredPositiveInt("shared_expert_intermediate_size") : 0);
            case LLAMA, MISTRAL, QWEN2, QWEN3 -> throw new IllegalArgumentException(family + " has no experts");
        };
    }

    /** Hub Qwen files say {@code num_experts}, transformers 5 writes Qwen3-MoE's as {@code num_local_experts}, Mixtral's is always that. */
    private static int expertCount(ConfigKeys keys) {
        boolean plain = keys.isNonNull("num_experts");
        boolean local = keys.isNonNull("num_local_experts");
        if (!plain && !local) {
            throw new OracleInputException(keys.where() + ": num_experts (or num_local_experts) is missing");
        }
        int n = keys.requiredPositiveInt(plain ? "num_experts" : "num_local_experts");
        if (plain && local && keys.requiredPositiveInt("num_local_experts") != n) {
            throw new OracleInputException(keys.where() + ": num_experts " + n + " and num_local_experts " + keys.node("num_local_experts")
                    + " disagree");
        }
        return n;
    }

    /** Layer indices below {@code layers}; one outside is refused (transformers would ignore it silently). */
    private static List<Integer> mlpOnlyLayers(ConfigKeys keys, int layers) {
        JsonNode n = keys.node("mlp_only_layers");
        if (n == null || n.isNull()) {
            return List.of();
        }
        if (!n.isArray()) {
            throw new OracleInputException(keys.where() + ": mlp_only_layers is " + n + ", not a list of layer indices");
        }
        List<Integer> out = new ArrayList<>();
        for (JsonNode x : n) {
            if (!x.isIntegralNumber() || !x.canConvertToInt() || x.asInt() < 0 || x.asInt() >= layers) {
                throw new OracleInputException(keys.where() + ": mlp_only_layers " + n + " has " + x + ", not a layer index below " + layers);
            }
            out.add(x.asInt());
        }
        return out;
    }
}
