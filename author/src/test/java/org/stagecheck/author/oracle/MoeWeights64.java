package org.stagecheck.author.oracle;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * One sparse layer's MLP (FAMILIES.md): the router {@code [E, D]} without bias, E experts of
 * width {@code expertIntermediate}, and for Qwen2-MoE the shared expert and its {@code [1, D]} gate.
 * Read under the per-expert hub names that {@code save_pretrained} writes: {@code mlp.gate},
 * {@code mlp.experts.N.{gate,up,down}_proj}; Mixtral's {@code block_sparse_moe.gate} and
 * {@code block_sparse_moe.experts.N.w1} (gate), {@code w3} (up), {@code w2} (down). The fused
 * in-memory names of transformers 5 ({@code experts.gate_up_proj}, {@code experts.down_proj}) are refused.
 *
 * @param shared     the shared expert, or null
 * @param sharedGate the shared expert's gate {@code [1, D]}, or null
 */
record MoeWeights64(Linear64 router, List<GatedMlp64> experts, GatedMlp64 shared, Linear64 sharedGate, MoeConfig64 config) {

    static MoeWeights64 read(HfCheckpoint64 ckpt, String layerPrefix, HfConfig64 c) {
        MoeConfig64 moe = c.moe();
        int d = c.hidden();
        boolean mixtral = c.family() == HfConfig64.Family.MIXTRAL;
        String block = layerPrefix + (mixtral ? "block_sparse_moe." : "mlp.");
        for (String fused : List.of("experts.gate_up_proj", "experts.down_proj", "experts.gate_up_proj.weight", "experts.down_proj.weight")) {
            if (ckpt.has(block + fused)) {
                throw new OracleInputException(ckpt.dir() + ": " + block + fused + " is a fused expert tensor; only the per-expert names"
                        + " save_pretrained writes are read");
            }
        }
        Linear64 router = Linear64.read(ckpt, block + "gate", moe.experts(), d, false);
        List<GatedMlp64> experts = new ArrayList<>();
        for (int e = 0; e < moe.experts(); e++) {
            String x = block + "experts." + e + ".";
            experts.add(mixtral
                    ? GatedMlp64.read(ckpt, x + "w1", x + "w3", x + "w2", moe.expertIntermediate(), d)
                    : GatedMlp64.read(ckpt, x + "gate_proj", x + "up_proj", x + "down_proj", moe.expertIntermediate(), d));
        }
        GatedMlp64 shared = null;
        Linear64 sharedGate = null;
        if (moe.sharedIntermediate() > 0) {
            String s = block + "shared_expert.";
            shared = GatedMlp64.read(ckpt, s + "gate_proj", s + "up_proj", s + "down_proj", moe.sharedIntermediate(), d);
            sharedGate = Linear64.read(ckpt, block + "shared_expert_gate", 1, d, false);
        }
        return new MoeWeights64(router, List.copyOf(experts), shared, sharedGate, moe);
    }

    /**
     * The block's output for the post-attention-norm row {@code y}: {@code sum w_k * expert_k(y)} over
     * the chosen experts, accumulated in ascending expert index from zero (each output scaled after
     * its down projection), plus {@code sigmoid(y . W_sg) * shared(y)} when there is a shared expert.
     * The row's routing goes to {@code routed}.
     */
    double[] apply(double[] y, Consumer<RowRouting64> routed) {
        RowRouting64 routing = Router64.route(router.apply(y), config.topK(), config.normTopkProb());
        routed.accept(routing);
        double[] out = new double[y.length];
        for (int e : routing.expertsByIndex()) {
            double w = routing.weightOf(e);
            double[] o = experts.get(e).apply(y);
            for (int i = 0; i < out.length; i++) {
                out[i] += w * o[i];
            }
        }
        if (shared != null) {
            double gate = 1 / (1 + Math.exp(-sharedGate.apply(y)[0]));
            double[] s = shared.apply(y);
            for (int i = 0; i < out.length; i++) {
                out[i] += gate * s[i];
            }
        }
        return out;
    }
}
