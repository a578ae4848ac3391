package org.stagecheck.author.hf;

import java.util.ArrayList;
import java.util.List;
import org.stagecheck.author.Family;
import org.stagecheck.author.Moe;
import org.stagecheck.author.ModelSpecException;
import org.stagecheck.spec.json.JNode;

/**
 * The mixture-of-experts keys of config.json (docs/author.md, "Mixture of experts"): how many
 * experts, how many a token uses, their width, whether the chosen weights are renormalised, which
 * layers are sparse, and Qwen2-MoE's shared expert. A key a family needs is refused when absent
 * rather than taken from a class default (Qwen3-MoE's defaults are 128 experts, top 8).
 */
final class MoeConfig {
    private MoeConfig() {
    }

    /**
     * Qwen2-MoE and Qwen3-MoE: {@code num_experts} (hub) or {@code num_local_experts} (what
     * transformers 5 writes; both present must agree), {@code num_experts_per_tok},
     * {@code moe_intermediate_size}, {@code norm_topk_prob} (class default false),
     * {@code decoder_sparse_step} (1) and {@code mlp_only_layers} (none).
     */
    static Moe qwen(ConfigJson config, Family family, int sharedFfn) throws ModelSpecException {
        int experts = experts(config, family);
        int topK = config.requiredSize("num_experts_per_tok");
        int width = config.requiredSize("moe_intermediate_size");
        boolean norm = config.bool("norm_topk_prob", false);
        int step = config.has("decoder_sparse_step") ? config.size("decoder_sparse_step") : 1;
        List<Integer> dense = new ArrayList<>();
        if (!config.absentOrNull("mlp_only_layers")) {
            for (JNode n : config.array("mlp_only_layers")) {
                if (!(n instanceof JNode.JNumber num) || !num.integral() || num.text().startsWith("-") || num.text().length() > 9) {
                    throw config.at(n, "\"mlp_only_layers\" lists layer indices (non-negative integers)");
                }
                int layer = Integer.parseInt(num.text());
                int layers = config.requiredSize("num_hidden_layers");
                if (layer >= layers || dense.contains(layer)) {
                    throw config.at(n, "\"mlp_only_layers\" names layer " + layer + (layer >= layers
                            ? ", but the model has " + layers + " layers" : " twice"));
                }
                dense.add(layer);
            }
        }
        return moe(config, experts, topK, width, norm, step, dense, sharedFfn);
    }

    /** Mixtral: {@code num_local_experts}, {@code num_experts_per_tok}, experts as wide as {@code intermediate_size}, always renormalised, every layer sparse. */
    static Moe mixtral(ConfigJson config) throws ModelSpecException {
        return moe(config, config.requiredSize("num_local_experts"), config.requiredSize("num_experts_per_tok"),
                config.requiredSize("intermediate_size"), true, 1, List.of(), 0);
    }

    private static int experts(ConfigJson config, Family family) throws ModelSpecException {
        boolean hub = config.has("num_experts");
        boolean v5 = config.has("num_local_experts");
        if (!hub && !v5) {
            throw config.at(config.object(), "config.json has no \"num_experts\" (or \"num_local_experts\"); "
                    + family.architecture() + "'s class default is not a size stagecheck guesses");
        }
        int n = hub ? config.size("num_experts") : config.size("num_local_experts");
        if (hub && v5 && config.size("num_local_experts") != n) {
            throw config.at(config.get("num_local_experts"), "\"num_local_experts\" " + config.size("num_local_experts")
                    + " disagrees with \"num_experts\" " + n);
        }
        return n;
    }

    private static Moe moe(ConfigJson config, int experts, int topK, int width, boolean norm, int step, List<Integer> dense,
                           int shared) throws ModelSpecException {
        try {
            return new Moe(experts, topK, width, norm, step, dense, shared);
        } catch (IllegalArgumentException e) {
            throw new ModelSpecException(config.file() + ": " + e.getMessage());
        }
    }
}
