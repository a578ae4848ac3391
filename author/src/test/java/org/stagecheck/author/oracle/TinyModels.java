package org.stagecheck.author.oracle;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.stagecheck.author.oracle.TestCheckpointWriter.Dtype;
import org.stagecheck.author.oracle.TestCheckpointWriter.Tensor64;

/**
 * Small random checkpoints of each family for the oracle's own tests. Weights are multiples of
 * 1/64 below 1 in magnitude (norm weights 1 + such), exact in F32, BF16 and F16, so one model
 * written in any dtype reads back to the same doubles.
 */
final class TinyModels {
    private TinyModels() {}

    /** @param window Mistral's sliding_window (0 writes null); @param llama3 adds llama3 rope scaling */
    record Spec(HfConfig64.Family family, int vocab, int hidden, int intermediate, int layers, int heads, int kvHeads,
                int headDim, boolean tied, boolean attentionBias, boolean mlpBias, int window, boolean llama3) {

        static Spec of(HfConfig64.Family family) {
            return new Spec(family, 11, 8, 12, 2, 4, 2, 4, false, false, false, 0, false);
        }

        Spec withLayers(int n) {
            return new Spec(family, vocab, hidden, intermediate, n, heads, kvHeads, headDim, tied, attentionBias, mlpBias, window, llama3);
        }

        Spec withWindow(int w) {
            return new Spec(family, vocab, hidden, intermediate, layers, heads, kvHeads, headDim, tied, attentionBias, mlpBias, w, llama3);
        }

        Spec tiedHead(boolean t) {
            return new Spec(family, vocab, hidden, intermediate, layers, heads, kvHeads, headDim, t, attentionBias, mlpBias, window, llama3);
        }

        Spec withBiases() {
            return new Spec(family, vocab, hidden, intermediate, layers, heads, kvHeads, headDim, tied, true, true, window, llama3);
        }

        Spec withLlama3() {
            return new Spec(family, vocab, hidden, intermediate, layers, heads, kvHeads, headDim, tied, attentionBias, mlpBias, window, true);
        }
    }

    static Map<String, Object> config(Spec s) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("architectures", java.util.List.of(s.family().architecture));
        c.put("model_type", s.family().modelType);
        c.put("vocab_size", s.vocab());
        c.put("hidden_size", s.hidden());
        c.put("intermediate_size", s.intermediate());
        c.put("num_hidden_layers", s.layers());
        c.put("num_attention_heads", s.heads());
        c.put("num_key_value_heads", s.kvHeads());
        c.put("head_dim", s.headDim());
        c.put("rms_norm_eps", 1e-5);
        c.put("rope_theta", 100.0);
        c.put("tie_word_embeddings", s.tied());
        c.put("hidden_act", "silu");
        switch (s.family()) {
            case LLAMA -> {
                c.put("attention_bias", s.attentionBias());
                c.put("mlp_bias", s.mlpBias());
            }
            case MISTRAL -> c.put("sliding_window", s.window() == 0 ? null : s.window());
            case QWEN2 -> {
                c.put("use_sliding_window", false);
                c.put("sliding_window", 32768);
            }
            case QWEN3 -> c.put("attention_bias", s.attentionBias());
        }
        if (s.llama3()) {
            Map<String, Object> scaling = new LinkedHashMap<>();
            scaling.put("rope_type", "llama3");
            scaling.put("factor", 8.0);
            scaling.put("low_freq_factor", 1.0);
            scaling.put("high_freq_factor", 4.0);
            scaling.put("original_max_position_embeddings", 16);
            c.put("rope_scaling", scaling);
        }
        return c;
    }

    static Map<String, Tensor64> weights(Spec s, long seed) {
        Random rnd = new Random(seed);
        Map<String, Tensor64> w = new LinkedHashMap<>();
        int d = s.hidden();
        int qw = s.heads() * s.headDim();
        int kvw = s.kvHeads() * s.headDim();
        HfConfig64.Family f = s.family();
        boolean qkvBias = f == HfConfig64.Family.QWEN2 || (s.attentionBias() && f != HfConfig64.Family.MISTRAL);
        boolean oBias = s.attentionBias() && (f == HfConfig64.Family.LLAMA || f == HfConfig64.Family.QWEN3);
        boolean mlpBias = s.mlpBias() && f == HfConfig64.Family.LLAMA;
        w.put("model.embed_tokens.weight", random(rnd, s.vocab(), d));
        for (int l = 0; l < s.layers(); l++) {
            String p = "model.layers." + l + ".";
            w.put(p + "input_layernorm.weight", nearOne(rnd, d));
            linear(w, rnd, p + "self_attn.q_proj", qw, d, qkvBias);
            linear(w, rnd, p + "self_attn.k_proj", kvw, d, qkvBias);
            linear(w, rnd, p + "self_attn.v_proj", kvw, d, qkvBias);
            linear(w, rnd, p + "self_attn.o_proj", d, qw, oBias);
            if (f == HfConfig64.Family.QWEN3) {
                w.put(p + "self_attn.q_norm.weight", nearOne(rnd, s.headDim()));
                w.put(p + "self_attn.k_norm.weight", nearOne(rnd, s.headDim()));
            }
            w.put(p + "post_attention_layernorm.weight", nearOne(rnd, d));
            linear(w, rnd, p + "mlp.gate_proj", s.intermediate(), d, mlpBias);
            linear(w, rnd, p + "mlp.up_proj", s.intermediate(), d, mlpBias);
            linear(w, rnd, p + "mlp.down_proj", d, s.intermediate(), mlpBias);
        }
        w.put("model.norm.weight", nearOne(rnd, d));
        if (!s.tied()) {
            w.put("lm_head.weight", random(rnd, s.vocab(), d));
        }
        return w;
    }

    /** Writes config and weights as one F32 file into {@code dir}; returns {@code dir}. */
    static Path write(Path dir, Spec s, long seed) {
        TestCheckpointWriter.writeConfig(dir, config(s));
        TestCheckpointWriter.writeSingle(dir, weights(s, seed), Dtype.F32);
        return dir;
    }

    private static void linear(Map<String, Tensor64> w, Random rnd, String prefix, int out, int in, boolean bias) {
        w.put(prefix + ".weight", random(rnd, out, in));
        if (bias) {
            w.put(prefix + ".bias", random(rnd, out));
        }
    }

    static Tensor64 random(Random rnd, int... shape) {
        int n = 1;
        for (int x : shape) {
            n *= x;
        }
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = (rnd.nextInt(127) - 63) / 64.0;
        }
        return new Tensor64(shape, v);
    }

    private static Tensor64 nearOne(Random rnd, int n) {
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = 1 + (rnd.nextInt(33) - 16) / 64.0;
        }
        return new Tensor64(new int[] {n}, v);
    }
}
