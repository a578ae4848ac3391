package org.stagecheck.author.synth;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.SequencedMap;
import java.util.stream.IntStream;

import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.numeric.RoundFromDouble;
import org.stagecheck.tensor.safetensors.TensorSpec;

/**
 * The tensors of a synthetic checkpoint, with the names and torch {@code [out, in]} shapes that
 * {@code save_pretrained} writes for the family, and their values: a function of the seed, the
 * tensor's name and the element's index alone (SplitMix64 over a counter), so any tensor can be
 * made on its own, in parallel, and again identically.
 */
final class SyntheticTensors {
    /** How a tensor's values are drawn. */
    enum Kind {
        /** Uniform in [-1, 1). */
        EMBEDDING,
        /** Uniform in [-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = the stored shape's second dimension. */
        LINEAR,
        /** Uniform in [0.5, 1.5): not all ones, so a norm weight that is dropped or misplaced shows. */
        NORM,
        /** Magnitude uniform in [0.1, 0.5), either sign: never near 0, so a dropped bias shows. */
        BIAS,
        /**
         * A MoE router: uniform in [-4/sqrt(fan_in), 4/sqrt(fan_in)), four times a linear weight's range, so that
         * the router logits of a normed row spread over a few units: top-k choices differ across rows and the
         * k-th and (k+1)-th logits are seldom close.
         */
        ROUTER
    }

    private static final double ROUTER_RANGE = 4;

    private static final long GOLDEN = 0x9E3779B97F4A7C15L;
    private static final int CHUNK = 1 << 16;

    private final SyntheticModel model;
    private final SequencedMap<String, Kind> kinds = new LinkedHashMap<>();
    private final List<TensorSpec> specs = new ArrayList<>();

    SyntheticTensors(SyntheticModel model) {
        this.model = model;
        int d = model.hidden();
        int q = model.heads() * model.headDim();
        int kv = model.kvHeads() * model.headDim();
        int f = model.ffn();
        add("model.embed_tokens.weight", Kind.EMBEDDING, model.vocab(), d);
        boolean qkvBias = model.family() == SynthFamily.QWEN2 || model.family() == SynthFamily.QWEN2_MOE || model.attentionBias();
        boolean qkNorm = model.family() == SynthFamily.QWEN3 || model.family() == SynthFamily.QWEN3_MOE;
        for (int l = 0; l < model.layers(); l++) {
            String p = "model.layers." + l + ".";
            add(p + "input_layernorm.weight", Kind.NORM, d);
            add(p + "self_attn.q_proj.weight", Kind.LINEAR, q, d);
            add(p + "self_attn.k_proj.weight", Kind.LINEAR, kv, d);
            add(p + "self_attn.v_proj.weight", Kind.LINEAR, kv, d);
            if (qkvBias) {
                add(p + "self_attn.q_proj.bias", Kind.BIAS, q);
                add(p + "self_attn.k_proj.bias", Kind.BIAS, kv);
                add(p + "self_attn.v_proj.bias", Kind.BIAS, kv);
            }
            if (qkNorm) {
                add(p + "self_attn.q_norm.weight", Kind.NORM, model.headDim());
                add(p + "self_attn.k_norm.weight", Kind.NORM, model.headDim());
            }
            add(p + "self_attn.o_proj.weight", Kind.LINEAR, d, q);
            if (model.attentionBias()) {
                add(p + "self_attn.o_proj.bias", Kind.BIAS, d);
            }
            add(p + "post_attention_layernorm.weight", Kind.NORM, d);
            if (model.isSparseLayer(l)) {
                addExperts(p, model.moe());
            } else {
                add(p + "mlp.gate_proj.weight", Kind.LINEAR, f, d);
                add(p + "mlp.up_proj.weight", Kind.LINEAR, f, d);
                add(p + "mlp.down_proj.weight", Kind.LINEAR, d, f);
            }
            if (model.mlpBias()) {
                add(p + "mlp.gate_proj.bias", Kind.BIAS, f);
                add(p + "mlp.up_proj.bias", Kind.BIAS, f);
                add(p + "mlp.down_proj.bias", Kind.BIAS, d);
            }
        }
        add("model.norm.weight", Kind.NORM, d);
        if (!model.tieWordEmbeddings()) {
            add("lm_head.weight", Kind.LINEAR, model.vocab(), d);
        }
    }

    /**
     * A sparse layer's MLP under the hub's per-expert names (never transformers 5's fused in-memory
     * ones): the router {@code [E, D]}, each expert's gate/up {@code [Fm, D]} and down {@code [D, Fm]};
     * Qwen2-MoE adds the shared expert and its {@code [1, D]} gate. Mixtral names them
     * {@code block_sparse_moe.gate} and {@code experts.N.w1} (gate), {@code w3} (up), {@code w2} (down).
     */
    private void addExperts(String layer, SyntheticMoe moe) {
        int d = model.hidden();
        int fm = moe.moeIntermediate();
        boolean mixtral = model.family() == SynthFamily.MIXTRAL;
        String block = layer + (mixtral ? "block_sparse_moe." : "mlp.");
        add(block + "gate.weight", Kind.ROUTER, moe.numExperts(), d);
        for (int e = 0; e < moe.numExperts(); e++) {
            String x = block + "experts." + e + ".";
            add(x + (mixtral ? "w1" : "gate_proj") + ".weight", Kind.LINEAR, fm, d);
            add(x + (mixtral ? "w3" : "up_proj") + ".weight", Kind.LINEAR, fm, d);
            add(x + (mixtral ? "w2" : "down_proj") + ".weight", Kind.LINEAR, d, fm);
        }
        int fs = moe.sharedExpertIntermediate();
        if (fs > 0) {
            add(block + "shared_expert.gate_proj.weight", Kind.LINEAR, fs, d);
            add(block + "shared_expert.up_proj.weight", Kind.LINEAR, fs, d);
            add(block + "shared_expert.down_proj.weight", Kind.LINEAR, d, fs);
            add(block + "shared_expert_gate.weight", Kind.LINEAR, 1, d);
        }
    }

    private void add(String name, Kind kind, int... dims) {
        kinds.put(name, kind);
        specs.add(new TensorSpec(name, model.dtype(), Shape.of(dims)));
    }

    List<TensorSpec> specs() {
        return Collections.unmodifiableList(specs);
    }

    Kind kind(String name) {
        return kinds.get(name);
    }

    /** The values of {@code spec} (one of {@link #specs}), each drawn in double and rounded once to the dtype. */
    Tensor values(TensorSpec spec) {
        Kind kind = kinds.get(spec.name());
        if (kind == null) {
            throw new IllegalArgumentException(spec.name() + " is not a tensor of this model");
        }
        int n = Math.toIntExact(spec.shape().elementCount());
        long stream = mix64(model.seed() * GOLDEN ^ fnv1a(spec.name()));
        double scale = switch (kind) {
            case LINEAR -> 1 / Math.sqrt(spec.shape().dim(1));
            case ROUTER -> ROUTER_RANGE / Math.sqrt(spec.shape().dim(1));
            case EMBEDDING, NORM, BIAS -> 1;
        };
        DType dtype = spec.dtype();
        int chunks = (n + CHUNK - 1) / CHUNK;
        return switch (dtype) {
            case F32 -> {
                float[] v = new float[n];
                IntStream.range(0, chunks).parallel().forEach(c -> {
                    for (int i = c * CHUNK, end = Math.min(n, i + CHUNK); i < end; i++) {
                        v[i] = (float) value(kind, scale, stream, i);
                    }
                });
                yield Tensor.wrapFloats(spec.shape(), v);
            }
            case BF16, F16 -> {
                short[] v = new short[n];
                boolean bf16 = dtype == DType.BF16;
                IntStream.range(0, chunks).parallel().forEach(c -> {
                    for (int i = c * CHUNK, end = Math.min(n, i + CHUNK); i < end; i++) {
                        double x = value(kind, scale, stream, i);
                        v[i] = bf16 ? RoundFromDouble.bf16(x) : RoundFromDouble.f16(x);
                    }
                });
                yield Tensor.wrapBits16(dtype, spec.shape(), v);
            }
            case I32, E4M3, E5M2 -> throw new IllegalStateException("SyntheticModel allows only f32, bf16 and f16, not " + dtype);
        };
    }

    private static double value(Kind kind, double scale, long stream, int i) {
        double u = (mix64(stream + (i + 1L) * GOLDEN) >>> 11) * 0x1.0p-53; // [0, 1)
        return switch (kind) {
            case EMBEDDING -> 2 * u - 1;
            case LINEAR, ROUTER -> (2 * u - 1) * scale;
            case NORM -> 0.5 + u;
            case BIAS -> {
                double w = 2 * u; // [0, 2): which half is the sign, where in it the magnitude
                yield w < 1 ? -(0.1 + 0.4 * w) : 0.1 + 0.4 * (w - 1);
            }
        };
    }

    /** SplitMix64's finalizer. */
    private static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static long fnv1a(String s) {
        long h = 0xCBF29CE484222325L;
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            h = (h ^ (b & 0xFF)) * 0x100000001B3L;
        }
        return h;
    }
}
