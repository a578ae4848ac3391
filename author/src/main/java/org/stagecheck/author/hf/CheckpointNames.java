package org.stagecheck.author.hf;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.SequencedMap;
import org.stagecheck.author.Architecture;
import org.stagecheck.author.Family;
import org.stagecheck.author.Moe;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.author.Weights;
import org.stagecheck.spec.json.CheckpointRefs;

/**
 * Which checkpoint tensor each of stagecheck's logical weights is (docs/author.md,
 * "Checkpoints"), with the view that turns the stored tensor into stagecheck's: torch's
 * {@code [out, in]} linear weights transposed to {@code [in, out]}, norm weights and biases
 * {@code [n]} read as rows {@code [1, n]}, the embedding as stored, and a tied head the
 * transposed embedding. The names are those every supported family writes (FAMILIES.md).
 */
public final class CheckpointNames {
    private CheckpointNames() {
    }

    /**
     * A logical weight's checkpoint key, view, and the torch shape the checkpoint must hold; a
     * stacked view's key has {@code {e}} for the expert index, each of the {@code experts}
     * tensors of {@code storedShape}.
     */
    public record Source(String key, CheckpointRefs.View view, List<Long> storedShape, int experts) {
        Source(String key, CheckpointRefs.View view, List<Long> storedShape) {
            this(key, view, storedShape, 0);
        }

        /** The key of each stored tensor: the key itself, or one per expert. */
        public List<String> keys() {
            if (experts == 0) {
                return List.of(key);
            }
            List<String> out = new java.util.ArrayList<>();
            for (int e = 0; e < experts; e++) {
                out.add(key.replace("{e}", Integer.toString(e)));
            }
            return out;
        }
    }

    /** Every logical weight of {@code spec}, in the order {@link Weights#all} makes them. */
    public static SequencedMap<String, Source> of(ModelSpec spec) {
        long d = spec.hidden();
        long v = spec.vocab();
        long q = spec.qWidth();
        long kv = spec.kvWidth();
        long f = spec.ffn();
        long dh = spec.headDim();
        Architecture a = spec.arch();
        SequencedMap<String, Source> out = new LinkedHashMap<>();
        String embed = "model.embed_tokens.weight";
        out.put("embed", new Source(embed, CheckpointRefs.View.AS_STORED, List.of(v, d)));
        for (int l = 0; l < spec.layers(); l++) {
            String p = "model.layers." + l + ".";
            out.put(Weights.layerName("attn_norm", l), row(p + "input_layernorm.weight", d));
            out.put(Weights.layerName("wq", l), linear(p + "self_attn.q_proj.weight", q, d));
            out.put(Weights.layerName("wk", l), linear(p + "self_attn.k_proj.weight", kv, d));
            out.put(Weights.layerName("wv", l), linear(p + "self_attn.v_proj.weight", kv, d));
            out.put(Weights.layerName("wo", l), linear(p + "self_attn.o_proj.weight", d, q));
            out.put(Weights.layerName("mlp_norm", l), row(p + "post_attention_layernorm.weight", d));
            if (a.moe().sparse(l)) {
                experts(out, spec, l, p);
            } else {
                out.put(Weights.layerName("w_gate", l), linear(p + "mlp.gate_proj.weight", f, d));
                out.put(Weights.layerName("w_up", l), linear(p + "mlp.up_proj.weight", f, d));
                out.put(Weights.layerName("w_down", l), linear(p + "mlp.down_proj.weight", d, f));
            }
            if (a.qkvBias()) {
                out.put(Weights.layerName("bq", l), row(p + "self_attn.q_proj.bias", q));
                out.put(Weights.layerName("bk", l), row(p + "self_attn.k_proj.bias", kv));
                out.put(Weights.layerName("bv", l), row(p + "self_attn.v_proj.bias", kv));
            }
            if (a.outputBias()) {
                out.put(Weights.layerName("bo", l), row(p + "self_attn.o_proj.bias", d));
            }
            if (a.mlpBias()) {
                out.put(Weights.layerName("b_gate", l), row(p + "mlp.gate_proj.bias", f));
                out.put(Weights.layerName("b_up", l), row(p + "mlp.up_proj.bias", f));
                out.put(Weights.layerName("b_down", l), row(p + "mlp.down_proj.bias", d));
            }
            if (a.qkNorm()) {
                out.put(Weights.layerName("q_norm", l), row(p + "self_attn.q_norm.weight", dh));
                out.put(Weights.layerName("k_norm", l), row(p + "self_attn.k_norm.weight", dh));
            }
        }
        out.put("final_norm", row("model.norm.weight", d));
        out.put("head", a.tiedEmbeddings() ? linear(embed, v, d) : linear("lm_head.weight", v, d));
        return out;
    }

    /**
     * A sparse layer's router and stacked experts (Qwen: {@code mlp.gate}, {@code mlp.experts.{e}.*_proj};
     * Mixtral: {@code block_sparse_moe.gate}, {@code block_sparse_moe.experts.{e}.w1/w3/w2} for gate,
     * up, down), and Qwen2-MoE's shared expert and its gate.
     */
    private static void experts(SequencedMap<String, Source> out, ModelSpec spec, int l, String p) {
        Moe m = spec.arch().moe();
        long d = spec.hidden();
        long e = m.experts();
        long fm = m.expertFfn();
        boolean mixtral = spec.arch().family() == Family.MIXTRAL;
        String block = mixtral ? p + "block_sparse_moe." : p + "mlp.";
        String gate = mixtral ? "w1" : "gate_proj";
        String up = mixtral ? "w3" : "up_proj";
        String down = mixtral ? "w2" : "down_proj";
        out.put(Weights.layerName("router", l), linear(block + "gate.weight", e, d));
        out.put(Weights.layerName("experts_gate", l), new Source(block + "experts.{e}." + gate + ".weight",
                CheckpointRefs.View.TRANSPOSED_STACKED_ROWS, List.of(fm, d), (int) e));
        out.put(Weights.layerName("experts_up", l), new Source(block + "experts.{e}." + up + ".weight",
                CheckpointRefs.View.TRANSPOSED_STACKED_ROWS, List.of(fm, d), (int) e));
        out.put(Weights.layerName("experts_down", l), new Source(block + "experts.{e}." + down + ".weight",
                CheckpointRefs.View.TRANSPOSED_STACKED_COLUMNS, List.of(d, fm), (int) e));
        if (m.shared()) {
            long fs = m.sharedFfn();
            out.put(Weights.layerName("shared_gate", l), linear(p + "mlp.shared_expert.gate_proj.weight", fs, d));
            out.put(Weights.layerName("shared_up", l), linear(p + "mlp.shared_expert.up_proj.weight", fs, d));
            out.put(Weights.layerName("shared_down", l), linear(p + "mlp.shared_expert.down_proj.weight", d, fs));
            out.put(Weights.layerName("shared_expert_gate", l), linear(p + "mlp.shared_expert_gate.weight", 1, d));
        }
    }

    private static Source linear(String key, long out, long in) {
        return new Source(key, CheckpointRefs.View.TRANSPOSED, List.of(out, in));
    }

    private static Source row(String key, long n) {
        return new Source(key, CheckpointRefs.View.ROW, List.of(n));
    }
}
