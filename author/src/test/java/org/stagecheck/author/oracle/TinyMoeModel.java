package org.stagecheck.author.oracle;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.stagecheck.author.oracle.HfConfig64.Family;
import org.stagecheck.author.oracle.TestCheckpointWriter.Dtype;
import org.stagecheck.author.oracle.TestCheckpointWriter.Tensor64;
import org.stagecheck.author.oracle.TinyModels.Spec;

/**
 * A small random MoE checkpoint for the oracle's own tests: the attention of the family's dense
 * sibling ({@link TinyModels}: Qwen3 for Qwen3-MoE, Qwen2 for Qwen2-MoE, Mistral for Mixtral) with
 * the sparse layers' MLPs replaced by a router and experts. Router weights are four times wider
 * than the other weights (multiples of 1/16 below 4), so routing differs from row to row.
 *
 * @param window Mixtral's sliding_window, 0 for none
 */
record TinyMoeModel(Family family, int layers, int experts, int topK, boolean normTopkProb, int sparseStep, List<Integer> mlpOnlyLayers,
        int window) {

    static final int EXPERT_WIDTH = 6;
    static final int SHARED_WIDTH = 5;

    private Spec dense() {
        Family sibling = switch (family) {
            case QWEN3_MOE -> Family.QWEN3;
            case QWEN2_MOE -> Family.QWEN2;
            case MIXTRAL -> Family.MISTRAL;
            case LLAMA, MISTRAL, QWEN2, QWEN3 -> throw new IllegalArgumentException(family + " is dense");
        };
        return Spec.of(sibling).withLayers(layers).withWindow(family == Family.MIXTRAL ? window : 0);
    }

    private boolean sparse(int layer) {
        return !mlpOnlyLayers.contains(layer) && (layer + 1) % sparseStep == 0;
    }

    Map<String, Object> config() {
        Map<String, Object> c = TinyModels.config(dense());
        c.put("architectures", List.of(family.architecture));
        c.put("model_type", family.modelType);
        c.put("num_experts_per_tok", topK);
        switch (family) {
            case MIXTRAL -> c.put("num_local_experts", experts);
            case QWEN3_MOE, QWEN2_MOE -> {
                c.put("num_experts", experts);
                c.put("moe_intermediate_size", EXPERT_WIDTH);
                c.put("norm_topk_prob", normTopkProb);
                c.put("decoder_sparse_step", sparseStep);
                c.put("mlp_only_layers", mlpOnlyLayers);
                if (family == Family.QWEN2_MOE) {
                    c.put("shared_expert_intermediate_size", SHARED_WIDTH);
                }
            }
            case LLAMA, MISTRAL, QWEN2, QWEN3 -> throw new IllegalArgumentException(family + " is dense");
        }
        return c;
    }

    Map<String, Tensor64> weights(long seed) {
        Spec dense = dense();
        Map<String, Tensor64> w = TinyModels.weights(dense, seed);
        Random rnd = new Random(seed ^ 0x5EED);
        int d = dense.hidden();
        boolean mixtral = family == Family.MIXTRAL;
        int width = mixtral ? dense.intermediate() : EXPERT_WIDTH;
        for (int l = 0; l < layers; l++) {
            if (!sparse(l)) {
                continue;
            }
            String p = "model.layers." + l + ".";
            for (String dropped : List.of("gate_proj", "up_proj", "down_proj")) {
                w.remove(p + "mlp." + dropped + ".weight");
            }
            String block = p + (mixtral ? "block_sparse_moe." : "mlp.");
            Tensor64 router = TinyModels.random(rnd, experts, d);
            double[] wide = router.data().clone();
            for (int i = 0; i < wide.length; i++) {
                wide[i] *= 4;
            }
            w.put(block + "gate.weight", new Tensor64(router.shape(), wide));
            for (int e = 0; e < experts; e++) {
                String x = block + "experts." + e + ".";
                w.put(x + (mixtral ? "w1" : "gate_proj") + ".weight", TinyModels.random(rnd, width, d));
                w.put(x + (mixtral ? "w3" : "up_proj") + ".weight", TinyModels.random(rnd, width, d));
                w.put(x + (mixtral ? "w2" : "down_proj") + ".weight", TinyModels.random(rnd, d, width));
            }
            if (family == Family.QWEN2_MOE) {
                w.put(block + "shared_expert.gate_proj.weight", TinyModels.random(rnd, SHARED_WIDTH, d));
                w.put(block + "shared_expert.up_proj.weight", TinyModels.random(rnd, SHARED_WIDTH, d));
                w.put(block + "shared_expert.down_proj.weight", TinyModels.random(rnd, d, SHARED_WIDTH));
                w.put(block + "shared_expert_gate.weight", TinyModels.random(rnd, 1, d));
            }
        }
        return w;
    }

    /** Writes config and weights as one F32 file into {@code dir}; returns {@code dir}. */
    Path write(Path dir, long seed) {
        TestCheckpointWriter.writeConfig(dir, config());
        TestCheckpointWriter.writeSingle(dir, weights(seed), Dtype.F32);
        return dir;
    }
}
