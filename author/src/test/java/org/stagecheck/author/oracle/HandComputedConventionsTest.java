package org.stagecheck.author.oracle;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.author.oracle.TestCheckpointWriter.Dtype;
import org.stagecheck.author.oracle.TestCheckpointWriter.Tensor64;

/**
 * One-layer models small enough to work out by hand, each built so that a wrong convention gives
 * different logits: rotate_half pairing, the GQA head mapping, RMSNorm's formula, and which
 * projections carry a bias in Llama and Qwen2. Every lm_head is the identity, so the logits are
 * the final RMSNorm's output (the vocabulary is as wide as the hidden state).
 */
class HandComputedConventionsTest {
    private static final double TOLERANCE = 1e-14;

    /**
     * D = 4, one head of Dh = 4, theta 10000 (inv_freq 1 and 0.01). Token 0 embeds as (1,1,1,1),
     * token 1 as (1,1,-1,-1); RMSNorm (eps 0, w = 1) keeps both. q = (2,0,0,0) and k = (0,0,2,0)
     * for both tokens; v = (1,0,0,0) for token 0 and (-1,0,0,0) for token 1; o_proj = I, MLP 0.
     * Sequence [1, 0]. rotate_half pairs element 0 with element 2 (angle pos * 1):
     * q at 1 = (2cos1, 0, 2sin1, 0), k at 0 = (0,0,2,0), k at 1 = (-2sin1, 0, 2cos1, 0), so the
     * scores /sqrt(4) are 2 sin 1 and 0, the weights sigmoid(2 sin 1) and its complement, and the
     * attention output (1 - 2 sigmoid(2 sin 1)) = -tanh(sin 1) on element 0. Interleaved pairs
     * (0 with 1) would keep q and k orthogonal (a = 0); the opposite rotation would give +tanh(sin 1).
     */
    @Test
    void rotateHalfPairsElementIWithIPlusHalfTheHead(@TempDir Path dir) {
        HfForward64 model = write(dir, config("LlamaForCausalLM", 4, 4, 1, 1, 4, 0.0), rotaryProbe());
        double[][] logits = model.forwardAll(new int[] {1, 0});

        // position 0 sees only itself: h = (1,1,-1,-1) + (-1,0,0,0), mean square 3/4
        double r0 = Math.sqrt(0.75);
        LogitsAssert.close(logits[0], new double[] {0, 1 / r0, -1 / r0, -1 / r0}, TOLERANCE, "position 0");
        double a = -Math.tanh(Math.sin(1));
        double r1 = Math.sqrt(((1 + a) * (1 + a) + 3) / 4);
        LogitsAssert.close(logits[1], new double[] {(1 + a) / r1, 1 / r1, 1 / r1, 1 / r1}, TOLERANCE, "position 1");
    }

    /** The weights of {@link #rotateHalfPairsElementIWithIPlusHalfTheHead}. */
    private static Map<String, Tensor64> rotaryProbe() {
        Map<String, Tensor64> w = new LinkedHashMap<>();
        w.put("model.embed_tokens.weight", t(new int[] {4, 4}, 1, 1, 1, 1, /* token 1 */ 1, 1, -1, -1, 1, 1, 1, 1, 1, 1, 1, 1));
        layer(w, 4, 1);
        w.put("model.layers.0.self_attn.q_proj.weight", t(new int[] {4, 4}, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
        w.put("model.layers.0.self_attn.k_proj.weight", t(new int[] {4, 4}, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0));
        w.put("model.layers.0.self_attn.v_proj.weight", t(new int[] {4, 4}, 0, 0, 0.5, 0.5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
        w.put("model.layers.0.self_attn.o_proj.weight", identity(4));
        return w;
    }

    /**
     * The rotary probe above as Qwen3, with q_norm 1 and k_norm (1, 1, 0.5, 1), eps 0: q = (2,0,0,0)
     * and k = (0,0,2,0) have mean square 1, so the norms give q = (2,0,0,0), k = (0,0,1,0) before
     * rotary; the score of key 0 halves to sin 1 and key 1 stays at 0, so a = -tanh(sin(1) / 2).
     * Normed after rotary, k at 1 = (-2 sin 1, 0, cos 1, 0) would score -sin 1 cos 1 instead of 0.
     */
    @Test
    void qwen3NormsEachHeadBeforeRotary(@TempDir Path dir) {
        Map<String, Tensor64> w = rotaryProbe();
        w.put("model.layers.0.self_attn.q_norm.weight", ones(4));
        w.put("model.layers.0.self_attn.k_norm.weight", t(new int[] {4}, 1, 1, 0.5, 1));
        HfForward64 model = write(dir, config("Qwen3ForCausalLM", 4, 4, 1, 1, 4, 0.0), w);
        double a = -Math.tanh(Math.sin(1) / 2);
        double r1 = Math.sqrt(((1 + a) * (1 + a) + 3) / 4);
        LogitsAssert.close(model.forwardAll(new int[] {1, 0})[1], new double[] {(1 + a) / r1, 1 / r1, 1 / r1, 1 / r1}, TOLERANCE, "position 1");
    }

    /**
     * D = 4, H = 4 query heads, KH = 2, Dh = 2, one token (1,1,1,1): the softmax over one key is 1,
     * so head h outputs the v of its KV head. v = (1,2 | 3,4). Query heads 0,1 read KV head 0 and
     * 2,3 read KV head 1 (h / (H/KH)): the heads' outputs are (1,2, 1,2, 3,4, 3,4); o_proj takes the
     * first element of each head: (1,1,3,3), h = (2,2,4,4), mean square 10. With h % KH it would be
     * (1,3,1,3).
     */
    @Test
    void queryHeadHReadsKvHeadHOverTheGroupSize(@TempDir Path dir) {
        Map<String, Tensor64> w = new LinkedHashMap<>();
        w.put("model.embed_tokens.weight", t(new int[] {4, 4}, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1));
        layer(w, 4, 1);
        w.put("model.layers.0.self_attn.q_proj.weight", zeros(8, 4));
        w.put("model.layers.0.self_attn.k_proj.weight", zeros(4, 4));
        w.put("model.layers.0.self_attn.v_proj.weight", t(new int[] {4, 4}, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0));
        double[] o = new double[4 * 8];
        for (int d = 0; d < 4; d++) {
            o[d * 8 + 2 * d] = 1;
        }
        w.put("model.layers.0.self_attn.o_proj.weight", new Tensor64(new int[] {4, 8}, o));
        HfForward64 model = write(dir, config("LlamaForCausalLM", 4, 4, 4, 2, 2, 0.0), w);
        double r = Math.sqrt(10);
        LogitsAssert.close(model.forwardAll(new int[] {0})[0], new double[] {2 / r, 2 / r, 4 / r, 4 / r}, TOLERANCE, "GQA");
    }

    /**
     * D = 2, attention and MLP zero, token (3,4), final norm weight (2, 0.5), eps 0.5:
     * x * rsqrt(mean(x^2) + eps) * w = (3,4) / sqrt(12.5 + 0.5) * (2, 0.5) = (6, 2) / sqrt(13).
     * Gemma's 1 + w would give (9, 6) / sqrt(13); eps outside the root, or a sum for the mean, differ too.
     */
    @Test
    void rmsNormIsXTimesRsqrtOfMeanSquarePlusEpsTimesW(@TempDir Path dir) {
        Map<String, Tensor64> w = new LinkedHashMap<>();
        w.put("model.embed_tokens.weight", t(new int[] {2, 2}, 3, 4, 1, 1));
        layer(w, 2, 1);
        w.put("model.norm.weight", t(new int[] {2}, 2, 0.5));
        HfForward64 model = write(dir, config("LlamaForCausalLM", 2, 2, 1, 1, 2, 0.5), w);
        double r = Math.sqrt(13);
        LogitsAssert.close(model.forwardAll(new int[] {0})[0], new double[] {6 / r, 2 / r}, TOLERANCE, "RMSNorm");
    }

    /**
     * D = 2, one token (1,1), eps 0. Every projection's weight is zero except o_proj = I and
     * down_proj = (1, 0)^T; biases: v (0.5, -0.25), o (0.25, 0), gate 1, up 2, down (0, 0.5).
     * Llama with attention_bias and mlp_bias: attention output v = (0.5, -0.25), o = (0.75, -0.25),
     * h = (1.75, 0.75); MLP = down(silu(1) * 2) + (0, 0.5) = (2 silu(1), 0.5); x = (1.75 + 2 silu(1), 1.25).
     * Qwen2 reads the q/k/v biases only: h = (1.5, 0.75) and the MLP is 0.
     */
    @Test
    void llamaBiasesCoverQkvoAndMlpWhileQwen2HasQkvOnly(@TempDir Path dir) {
        Map<String, Tensor64> w = new LinkedHashMap<>();
        w.put("model.embed_tokens.weight", t(new int[] {2, 2}, 1, 1, 1, 1));
        layer(w, 2, 1);
        w.put("model.layers.0.self_attn.q_proj.bias", zeros(2));
        w.put("model.layers.0.self_attn.k_proj.bias", zeros(2));
        w.put("model.layers.0.self_attn.v_proj.bias", t(new int[] {2}, 0.5, -0.25));
        w.put("model.layers.0.self_attn.o_proj.weight", identity(2));
        w.put("model.layers.0.self_attn.o_proj.bias", t(new int[] {2}, 0.25, 0));
        w.put("model.layers.0.mlp.gate_proj.bias", t(new int[] {1}, 1));
        w.put("model.layers.0.mlp.up_proj.bias", t(new int[] {1}, 2));
        w.put("model.layers.0.mlp.down_proj.weight", t(new int[] {2, 1}, 1, 0));
        w.put("model.layers.0.mlp.down_proj.bias", t(new int[] {2}, 0, 0.5));

        Map<String, Object> llama = config("LlamaForCausalLM", 2, 2, 1, 1, 2, 0.0);
        llama.put("attention_bias", true);
        llama.put("mlp_bias", true);
        double x0 = 1.75 + 2 / (1 + Math.exp(-1));
        double r = Math.sqrt((x0 * x0 + 1.25 * 1.25) / 2);
        LogitsAssert.close(write(dir.resolve("llama"), llama, w).forwardAll(new int[] {0})[0], new double[] {x0 / r, 1.25 / r}, TOLERANCE, "Llama");

        double q = Math.sqrt((1.5 * 1.5 + 0.75 * 0.75) / 2);
        HfForward64 qwen2 = write(dir.resolve("qwen2"), config("Qwen2ForCausalLM", 2, 2, 1, 1, 2, 0.0), w);
        LogitsAssert.close(qwen2.forwardAll(new int[] {0})[0], new double[] {1.5 / q, 0.75 / q}, TOLERANCE, "Qwen2");
    }

    /** Norms of weight 1, a zero MLP of width f, and the identity head; projections are added by the test. */
    private static void layer(Map<String, Tensor64> w, int d, int f) {
        w.put("model.layers.0.input_layernorm.weight", ones(d));
        w.put("model.layers.0.post_attention_layernorm.weight", ones(d));
        w.put("model.layers.0.self_attn.q_proj.weight", zeros(d, d));
        w.put("model.layers.0.self_attn.k_proj.weight", zeros(d, d));
        w.put("model.layers.0.self_attn.v_proj.weight", zeros(d, d));
        w.put("model.layers.0.self_attn.o_proj.weight", zeros(d, d));
        w.put("model.layers.0.mlp.gate_proj.weight", zeros(f, d));
        w.put("model.layers.0.mlp.up_proj.weight", zeros(f, d));
        w.put("model.layers.0.mlp.down_proj.weight", zeros(d, f));
        w.put("model.norm.weight", ones(d));
        w.put("lm_head.weight", identity(d));
    }

    private static Map<String, Object> config(String architecture, int vocab, int hidden, int heads, int kvHeads, int headDim, double eps) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("architectures", java.util.List.of(architecture));
        c.put("vocab_size", vocab);
        c.put("hidden_size", hidden);
        c.put("intermediate_size", 1);
        c.put("num_hidden_layers", 1);
        c.put("num_attention_heads", heads);
        c.put("num_key_value_heads", kvHeads);
        c.put("head_dim", headDim);
        c.put("rms_norm_eps", eps);
        c.put("rope_theta", 10000.0);
        return c;
    }

    private static HfForward64 write(Path dir, Map<String, Object> config, Map<String, Tensor64> weights) {
        TestCheckpointWriter.writeConfig(dir, config);
        TestCheckpointWriter.writeSingle(dir, weights, Dtype.F32);
        return HfForward64.open(dir);
    }

    private static Tensor64 t(int[] shape, double... values) {
        return new Tensor64(shape, values);
    }

    private static Tensor64 zeros(int... shape) {
        int n = 1;
        for (int s : shape) {
            n *= s;
        }
        return new Tensor64(shape, new double[n]);
    }

    private static Tensor64 ones(int n) {
        double[] v = new double[n];
        java.util.Arrays.fill(v, 1);
        return new Tensor64(new int[] {n}, v);
    }

    private static Tensor64 identity(int n) {
        double[] v = new double[n * n];
        for (int i = 0; i < n; i++) {
            v[i * n + i] = 1;
        }
        return new Tensor64(new int[] {n, n}, v);
    }
}
