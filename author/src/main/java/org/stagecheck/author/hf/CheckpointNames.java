package org.stagecheck.author.hf;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.SequencedMap;
import org.stagecheck.author.Architecture;
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

    /** A logical weight's checkpoint key, view, and the torch shape the checkpoint must hold. */
    public record Source(String key, CheckpointRefs.View view, List<Long> storedShape) {}

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
            out.put(Weights.layerName("w_gate", l), linear(p + "mlp.gate_proj.weight", f, d));
            out.put(Weights.layerName("w_up", l), linear(p + "mlp.up_proj.weight", f, d));
            out.put(Weights.layerName("w_down", l), linear(p + "mlp.down_proj.weight", d, f));
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

    private static Source linear(String key, long out, long in) {
        return new Source(key, CheckpointRefs.View.TRANSPOSED, List.of(out, in));
    }

    private static Source row(String key, long n) {
        return new Source(key, CheckpointRefs.View.ROW, List.of(n));
    }
}
