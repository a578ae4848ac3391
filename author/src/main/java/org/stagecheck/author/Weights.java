package org.stagecheck.author;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.numeric.RoundFromDouble;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;

/**
 * The model's weights, generated deterministically from the spec's seed (docs/author.md,
 * "Weights"). Every value is a pure function of (seed, tensor name, element index), so a shard
 * of a weight is exactly a slice of the unsplit weight and two runs give identical bytes.
 *
 * <p>Element {@code i} of tensor {@code name} is {@code u = splitmix64(seed ^ fnv1a64(name),
 * i)} mapped to {@code [-1, 1)}; a matrix with fan-in K is {@code u / sqrt(K)}, a norm weight is
 * {@code 1 + u/8}, the embedding is {@code u}. All f32, rounded once from double.
 */
public final class Weights {
    private Weights() {
    }

    /** Logical names: {@code embed}, per layer {@code attn_norm.l<i>, wq.l<i>, ...}, {@code final_norm, head}. */
    public static String layerName(String base, int layer) {
        return base + ".l" + layer;
    }

    /** Every weight of the model in f32, in a fixed order, plus the rotary tables for {@code ctx} positions (when ctx > 0). */
    public static Map<String, Tensor> all(ModelSpec spec, int ctx) {
        return all(spec, ctx, DType.F32);
    }

    /**
     * Every weight stored as {@code dtype} (each value rounded once, nearest-even, from the
     * double above), plus the f32 rotary tables for {@code ctx} positions (when ctx > 0).
     */
    public static Map<String, Tensor> all(ModelSpec spec, int ctx, DType dtype) {
        Map<String, Tensor> out = new LinkedHashMap<>();
        out.put("embed", uniform(spec, "embed", spec.vocab(), spec.hidden(), 1.0, 0.0, dtype));
        for (int l = 0; l < spec.layers(); l++) {
            out.putAll(layer(spec, l, dtype));
        }
        out.put("final_norm", norm(spec, "final_norm", dtype));
        out.put("head", spec.arch().tiedEmbeddings()
                ? transpose(out.get("embed"))
                : matrix(spec, "head", spec.hidden(), spec.vocab(), dtype));
        if (ctx > 0) {
            out.putAll(rope(spec, ctx));
        }
        return out;
    }

    /** The weights of layer {@code l}, stored as {@code dtype}. */
    public static Map<String, Tensor> layer(ModelSpec spec, int l, DType dtype) {
        Map<String, Tensor> out = new LinkedHashMap<>();
        int d = spec.hidden();
        out.put(layerName("attn_norm", l), norm(spec, layerName("attn_norm", l), dtype));
        out.put(layerName("wq", l), matrix(spec, layerName("wq", l), d, spec.qWidth(), dtype));
        out.put(layerName("wk", l), matrix(spec, layerName("wk", l), d, spec.kvWidth(), dtype));
        out.put(layerName("wv", l), matrix(spec, layerName("wv", l), d, spec.kvWidth(), dtype));
        out.put(layerName("wo", l), matrix(spec, layerName("wo", l), spec.qWidth(), d, dtype));
        out.put(layerName("mlp_norm", l), norm(spec, layerName("mlp_norm", l), dtype));
        Architecture a = spec.arch();
        if (a.moe().sparse(l)) {
            out.putAll(experts(spec, l, dtype));
        } else {
            out.put(layerName("w_gate", l), matrix(spec, layerName("w_gate", l), d, spec.ffn(), dtype));
            out.put(layerName("w_up", l), matrix(spec, layerName("w_up", l), d, spec.ffn(), dtype));
            out.put(layerName("w_down", l), matrix(spec, layerName("w_down", l), spec.ffn(), d, dtype));
        }
        if (a.qkvBias()) {
            out.put(layerName("bq", l), bias(spec, layerName("bq", l), spec.qWidth(), dtype));
            out.put(layerName("bk", l), bias(spec, layerName("bk", l), spec.kvWidth(), dtype));
            out.put(layerName("bv", l), bias(spec, layerName("bv", l), spec.kvWidth(), dtype));
        }
        if (a.outputBias()) {
            out.put(layerName("bo", l), bias(spec, layerName("bo", l), d, dtype));
        }
        if (a.mlpBias()) {
            out.put(layerName("b_gate", l), bias(spec, layerName("b_gate", l), spec.ffn(), dtype));
            out.put(layerName("b_up", l), bias(spec, layerName("b_up", l), spec.ffn(), dtype));
            out.put(layerName("b_down", l), bias(spec, layerName("b_down", l), d, dtype));
        }
        if (a.qkNorm()) {
            out.put(layerName("q_norm", l), uniform(spec, layerName("q_norm", l), 1, spec.headDim(), 0.125, 1.0, dtype));
            out.put(layerName("k_norm", l), uniform(spec, layerName("k_norm", l), 1, spec.headDim(), 0.125, 1.0, dtype));
        }
        return out;
    }

    /**
     * The rotary tables {@code rope_cos}, {@code rope_sin}, f32 {@code [ctx, headDim/2]}: row p,
     * column i is {@code cos/sin(p * theta^(-2i/headDim))}, computed in double, rounded once. The
     * rotation pairs element {@code i} with {@code i + headDim/2} of each head (the "half-split"
     * convention of Llama-style models). A checkpoint family's tables follow its reference code
     * instead ({@link RotaryFrequencies}): the inverse frequencies and the angle {@code p * inv}
     * in f32, then cos and sin of that f32 angle rounded once.
     */
    public static Map<String, Tensor> rope(ModelSpec spec, int ctx) {
        int half = spec.headDim() / 2;
        float[] cos = new float[ctx * half];
        float[] sin = new float[ctx * half];
        float[] inv = spec.arch().family().f32Rotary() ? RotaryFrequencies.f32(spec) : null;
        for (int p = 0; p < ctx; p++) {
            for (int i = 0; i < half; i++) {
                // the families' reference: an f32 angle (one f32 product); stagecheck's model: a double angle
                double angle = inv != null ? (double) ((float) p * inv[i]) : p * Math.pow(spec.ropeTheta(), -2.0 * i / spec.headDim());
                cos[p * half + i] = (float) Math.cos(angle);
                sin[p * half + i] = (float) Math.sin(angle);
            }
        }
        Map<String, Tensor> out = new LinkedHashMap<>();
        out.put("rope_cos", Tensor.fromFloats(DType.F32, Shape.of(ctx, half), cos));
        out.put("rope_sin", Tensor.fromFloats(DType.F32, Shape.of(ctx, half), sin));
        return out;
    }

    private static Tensor matrix(ModelSpec spec, String name, int k, int n, DType dtype) {
        return uniform(spec, name, k, n, 1.0 / Math.sqrt(k), 0.0, dtype);
    }

    /**
     * A sparse layer's router {@code [D, E]} (four times a matrix's spread, so that the routing
     * differs between rows), its experts stacked ({@code experts_gate}, {@code experts_up}
     * {@code [E*D, Fm]}, expert e at rows {@code e*D}; {@code experts_down} {@code [Fm, E*D]}, expert e at
     * columns {@code e*D}), and the shared expert when the
     * model has one ({@code shared_gate}, {@code shared_up} {@code [D, Fs]}, {@code shared_down}
     * {@code [Fs, D]}, {@code shared_expert_gate} {@code [D, 1]}).
     */
    private static Map<String, Tensor> experts(ModelSpec spec, int l, DType dtype) {
        Moe m = spec.arch().moe();
        int d = spec.hidden();
        int e = m.experts();
        int f = m.expertFfn();
        Map<String, Tensor> out = new LinkedHashMap<>();
        out.put(layerName("router", l), uniform(spec, layerName("router", l), d, e, 4.0 / Math.sqrt(d), 0.0, dtype));
        out.put(layerName("experts_gate", l), uniform(spec, layerName("experts_gate", l), e * d, f, 1.0 / Math.sqrt(d), 0.0, dtype));
        out.put(layerName("experts_up", l), uniform(spec, layerName("experts_up", l), e * d, f, 1.0 / Math.sqrt(d), 0.0, dtype));
        out.put(layerName("experts_down", l), uniform(spec, layerName("experts_down", l), f, e * d, 1.0 / Math.sqrt(f), 0.0, dtype));
        if (m.shared()) {
            int fs = m.sharedFfn();
            out.put(layerName("shared_gate", l), matrix(spec, layerName("shared_gate", l), d, fs, dtype));
            out.put(layerName("shared_up", l), matrix(spec, layerName("shared_up", l), d, fs, dtype));
            out.put(layerName("shared_down", l), matrix(spec, layerName("shared_down", l), fs, d, dtype));
            out.put(layerName("shared_expert_gate", l), matrix(spec, layerName("shared_expert_gate", l), d, 1, dtype));
        }
        return out;
    }

    private static Tensor bias(ModelSpec spec, String name, int n, DType dtype) {
        return uniform(spec, name, 1, n, 0.25, 0.0, dtype);
    }

    /** {@code [r, c]} to {@code [c, r]}, each value unchanged (its storage dtype kept). */
    static Tensor transpose(Tensor t) {
        int r = t.shape().dim(0);
        int c = t.shape().dim(1);
        float[] v = t.toFloats();
        float[] out = new float[v.length];
        for (int i = 0; i < r; i++) {
            for (int j = 0; j < c; j++) {
                out[j * r + i] = v[i * c + j];
            }
        }
        return Tensor.fromFloats(t.dtype(), Shape.of(c, r), out);
    }

    private static Tensor norm(ModelSpec spec, String name, DType dtype) {
        return uniform(spec, name, 1, spec.hidden(), 0.125, 1.0, dtype);
    }

    private static Tensor uniform(ModelSpec spec, String name, int rows, int cols, double scale, double shift,
                                  DType dtype) {
        long stream = spec.seed() ^ fnv1a64(name);
        float[] v = new float[rows * cols];
        boolean narrower = dtype != DType.F32;
        for (int i = 0; i < v.length; i++) {
            double x = shift + scale * unit(stream, i);
            // f32: nearest. Narrower: round-to-odd here, so that fromFloats' nearest-even rounding
            // to the 16-bit (or 8-bit) format is the one and only rounding of the double.
            v[i] = narrower ? RoundFromDouble.toOddFloat(x) : (float) x;
        }
        return Tensor.fromFloats(dtype, Shape.of(rows, cols), v);
    }

    /** A value in [-1, 1) from the SplitMix64 output at position {@code index} of {@code stream}. */
    static double unit(long stream, long index) {
        long z = stream + (index + 1) * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z = z ^ (z >>> 31);
        return ((z >>> 11) * 0x1.0p-53) * 2.0 - 1.0;
    }

    static long fnv1a64(String s) {
        long h = 0xcbf29ce484222325L;
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            h ^= (b & 0xff);
            h *= 0x100000001b3L;
        }
        return h;
    }
}
