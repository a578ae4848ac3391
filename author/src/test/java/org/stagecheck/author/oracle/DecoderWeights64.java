package org.stagecheck.author.oracle;

import java.util.ArrayList;
import java.util.List;

/**
 * Every weight of a checkpoint, read with the shapes the config implies (FAMILIES.md tensor names).
 * The head is {@code lm_head.weight}, or {@code model.embed_tokens.weight} when the embeddings are tied.
 * A sparse layer ({@link MoeConfig64#isSparse}) has its experts instead of the dense gate/up/down.
 */
record DecoderWeights64(double[] embed, List<Layer> layers, double[] finalNorm, Linear64 head) {

    /**
     * One decoder layer; {@code qNorm}/{@code kNorm} are null outside Qwen3 and Qwen3-MoE. A dense
     * layer has {@code gate}/{@code up}/{@code down} and a null {@code moe}; a sparse one the reverse.
     */
    record Layer(double[] inputNorm, Linear64 q, Linear64 k, Linear64 v, double[] qNorm, double[] kNorm, Linear64 o,
                 double[] postNorm, Linear64 gate, Linear64 up, Linear64 down, MoeWeights64 moe) {}

    static DecoderWeights64 read(HfCheckpoint64 ckpt) {
        HfConfig64 c = ckpt.config();
        int d = c.hidden();
        int qWidth = c.heads() * c.headDim();
        int kvWidth = c.kvHeads() * c.headDim();
        double[] embed = ckpt.tensor("model.embed_tokens.weight", c.vocab(), d);
        List<Layer> layers = new ArrayList<>();
        for (int l = 0; l < c.layers(); l++) {
            String p = "model.layers." + l + ".";
            String a = p + "self_attn.";
            boolean sparse = c.moe() != null && c.moe().isSparse(l);
            layers.add(new Layer(
                    ckpt.tensor(p + "input_layernorm.weight", d),
                    Linear64.read(ckpt, a + "q_proj", qWidth, d, c.qkvBias()),
                    Linear64.read(ckpt, a + "k_proj", kvWidth, d, c.qkvBias()),
                    Linear64.read(ckpt, a + "v_proj", kvWidth, d, c.qkvBias()),
                    c.qkNorm() ? ckpt.tensor(a + "q_norm.weight", c.headDim()) : null,
                    c.qkNorm() ? ckpt.tensor(a + "k_norm.weight", c.headDim()) : null,
                    Linear64.read(ckpt, a + "o_proj", d, qWidth, c.oBias()),
                    ckpt.tensor(p + "post_attention_layernorm.weight", d),
                    sparse ? null : Linear64.read(ckpt, p + "mlp.gate_proj", c.intermediate(), d, c.mlpBias()),
                    sparse ? null : Linear64.read(ckpt, p + "mlp.up_proj", c.intermediate(), d, c.mlpBias()),
                    sparse ? null : Linear64.read(ckpt, p + "mlp.down_proj", d, c.intermediate(), c.mlpBias()),
                    sparse ? MoeWeights64.read(ckpt, p, c) : null));
        }
        Linear64 head = c.tiedHead()
                ? new Linear64(embed, null, c.vocab(), d)
                : Linear64.read(ckpt, "lm_head", c.vocab(), d, false);
        return new DecoderWeights64(embed, List.copyOf(layers), ckpt.tensor("model.norm.weight", d), head);
    }
}
