package org.stagecheck.author.nd4j;

import java.util.Map;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.ops.transforms.Transforms;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.tensor.Tensor;

/**
 * A second reference forward pass of the authored decoder (docs/author.md,
 * "The model" and "Second reference (ND4J)"), written from the math of a Llama-style decoder on
 * ND4J in float64, not from the author's programs nor from its first reference. It reads only the
 * weight tensors by their documented names and layouts (every projection stored {@code [in, out]},
 * so {@code y = x W}; norm weights {@code [1, D]}; {@code embed [V, D]}; {@code head [D, V]}).
 *
 * <p>One step for one token at position {@code pos}:
 * <pre>
 * x = embed[token]
 * per layer: y = x / sqrt(mean(x^2) + eps) * attn_norm
 *            q, k, v = y wq, y wk, y wv;  q, k rotated per head by the rotary matrix R(pos)
 *            cache[pos] = k, v
 *            o_h = softmax_j(q_h . k_{g(h), j} / sqrt(Dh), j = 0..pos) v_{g(h), j}
 *            x = x + concat_h(o_h) wo
 *            y = x / sqrt(mean(x^2) + eps) * mlp_norm
 *            x = x + (silu(y w_gate) * (y w_up)) w_down,  silu(z) = z / (1 + e^-z)
 * logits = (x / sqrt(mean(x^2) + eps) * final_norm) head
 * </pre>
 * A prefill of several rows and a batch of sequences are, by the same math, this step applied row
 * by row (each row sees its own earlier positions), which is how the tests use it.
 *
 * <p>The rotary angle of pair i is {@code pos * theta^(-2i/Dh)} computed here in double (never the
 * program's f32 tables). {@link Conventions} exists so that the tests can show the comparison tells
 * the Llama conventions from the two usual misreadings: interleaved rotary pairs and a round-robin
 * query-to-KV-head map.
 */
final class Nd4jTransformer {

    /** Which elements of a head a rotary pair joins. */
    enum RopePairing {
        /** Element i with i + Dh/2 (Llama / GPT-NeoX "rotate half"), what docs/author.md states. */
        HALF_SPLIT,
        /** Element 2i with 2i + 1 (GPT-J / the original RoFormer). */
        INTERLEAVED
    }

    /** Which KV head query head h reads. */
    enum KvSharing {
        /** h / (H / KH): consecutive query heads share a KV head (Llama's repeat_kv), what docs/author.md states. */
        CONSECUTIVE,
        /** h mod KH: a misreading, used only to show the tests can tell. */
        ROUND_ROBIN
    }

    record Conventions(RopePairing rope, KvSharing kv) {
        static Conventions llama() {
            return new Conventions(RopePairing.HALF_SPLIT, KvSharing.CONSECUTIVE);
        }
    }

    /** The KV cache of one sequence: per layer, keys and values {@code [ctx, KH*Dh]} in float64. */
    static final class KvCache {
        final INDArray[] keys;
        final INDArray[] values;

        private KvCache(INDArray[] keys, INDArray[] values) {
            this.keys = keys;
            this.values = values;
        }

        static KvCache zeros(ModelSpec spec, int ctx) {
            INDArray[] k = new INDArray[spec.layers()];
            INDArray[] v = new INDArray[spec.layers()];
            for (int l = 0; l < spec.layers(); l++) {
                k[l] = Nd4j.zeros(org.nd4j.linalg.api.buffer.DataType.DOUBLE, ctx, spec.kvWidth());
                v[l] = Nd4j.zeros(org.nd4j.linalg.api.buffer.DataType.DOUBLE, ctx, spec.kvWidth());
            }
            return new KvCache(k, v);
        }

        /**
         * Rows {@code [firstRow, firstRow + ctx)} of the state tensors {@code kv_k.l<i>} and
         * {@code kv_v.l<i>} (a batch's row r owns rows {@code [r*ctx, (r+1)*ctx)}), widened exactly.
         */
        static KvCache fromState(ModelSpec spec, Map<String, Tensor> state, int firstRow, int ctx) {
            INDArray[] k = new INDArray[spec.layers()];
            INDArray[] v = new INDArray[spec.layers()];
            for (int l = 0; l < spec.layers(); l++) {
                k[l] = rows(state.get("kv_k.l" + l), firstRow, ctx, spec.kvWidth());
                v[l] = rows(state.get("kv_v.l" + l), firstRow, ctx, spec.kvWidth());
            }
            return new KvCache(k, v);
        }

        private static INDArray rows(Tensor t, int firstRow, int count, int width) {
            double[] out = new double[count * width];
            for (int i = 0; i < out.length; i++) {
                out[i] = t.getDouble((long) firstRow * width + i);
            }
            return Nd4j.createFromArray(out).reshape('c', count, width);
        }

        /** Layer l's keys (or values) as a row-major double array {@code [ctx * KH*Dh]}. */
        double[] flat(boolean keysNotValues, int layer) {
            return (keysNotValues ? keys : values)[layer].dup('c').data().asDouble();
        }
    }

    private final ModelSpec spec;
    private final Conventions conventions;
    private final Map<String, INDArray> w;

    /** @param weights the model's weights by logical name, in any floating dtype (read exactly) */
    Nd4jTransformer(ModelSpec spec, Map<String, Tensor> weights, Conventions conventions) {
        this.spec = spec;
        this.conventions = conventions;
        this.w = new java.util.HashMap<>();
        weights.forEach((name, t) -> {
            if (t.shape().rank() == 2) {
                w.put(name, Nd4j.createFromArray(t.toDoubles()).reshape('c', t.shape().dim(0), t.shape().dim(1)));
            }
        });
    }

    /**
     * One token at position {@code pos}: writes row {@code pos} of every layer's cache and
     * returns the logits {@code [V]}. Keys at rows above {@code pos} are never read.
     */
    double[] step(int token, int pos, KvCache cache) {
        INDArray x = weight("embed").getRow(token).reshape('c', 1, spec.hidden()).dup();
        for (int l = 0; l < spec.layers(); l++) {
            x = layer(l, x, pos, cache);
        }
        INDArray logits = rmsNorm(x, weight("final_norm")).mmul(weight("head"));
        return logits.dup('c').data().asDouble();
    }

    private INDArray layer(int l, INDArray x, int pos, KvCache cache) {
        INDArray y = rmsNorm(x, weight("attn_norm.l" + l));
        INDArray q = rotate(y.mmul(weight("wq.l" + l)), spec.heads(), pos);
        INDArray k = rotate(y.mmul(weight("wk.l" + l)), spec.kvHeads(), pos);
        INDArray v = y.mmul(weight("wv.l" + l));
        cache.keys[l].putRow(pos, k.reshape(spec.kvWidth()));
        cache.values[l].putRow(pos, v.reshape(spec.kvWidth()));
        INDArray attended = attention(q, cache.keys[l], cache.values[l], pos);
        x = x.add(attended.mmul(weight("wo.l" + l)));
        INDArray z = rmsNorm(x, weight("mlp_norm.l" + l));
        INDArray gate = z.mmul(weight("w_gate.l" + l));
        INDArray silu = gate.mul(Transforms.sigmoid(gate, true));
        INDArray up = z.mmul(weight("w_up.l" + l));
        return x.add(silu.mul(up).mmul(weight("w_down.l" + l)));
    }

    /** x * (sum(x^2)/D + eps)^(-1/2) * w, one row. */
    private INDArray rmsNorm(INDArray x, INDArray weight) {
        double meanSquare = x.mul(x).sumNumber().doubleValue() / spec.hidden();
        return x.mul(1.0 / Math.sqrt(meanSquare + spec.normEps())).mul(weight);
    }

    /** Each of {@code heads} head slices of the row {@code [1, heads*Dh]} times the rotation R(pos). */
    private INDArray rotate(INDArray row, int heads, int pos) {
        INDArray perHead = row.reshape('c', heads, spec.headDim());
        return perHead.mmul(rotation(pos)).reshape('c', 1, (long) heads * spec.headDim());
    }

    /**
     * R with {@code x' = x R}: for pair (a, b) at angle t, {@code a' = a cos t - b sin t},
     * {@code b' = b cos t + a sin t}.
     */
    private INDArray rotation(int pos) {
        int dh = spec.headDim();
        int half = dh / 2;
        double[][] r = new double[dh][dh];
        for (int i = 0; i < half; i++) {
            double angle = pos * Math.pow(spec.ropeTheta(), -2.0 * i / dh);
            int a = conventions.rope() == RopePairing.HALF_SPLIT ? i : 2 * i;
            int b = conventions.rope() == RopePairing.HALF_SPLIT ? i + half : 2 * i + 1;
            r[a][a] = Math.cos(angle);
            r[b][a] = -Math.sin(angle);
            r[b][b] = Math.cos(angle);
            r[a][b] = Math.sin(angle);
        }
        return Nd4j.createFromArray(r);
    }

    /** Causal grouped-query attention of one query row over cache rows 0..pos. */
    private INDArray attention(INDArray q, INDArray keys, INDArray values, int pos) {
        int dh = spec.headDim();
        INDArray out = Nd4j.zeros(org.nd4j.linalg.api.buffer.DataType.DOUBLE, 1, spec.qWidth());
        for (int h = 0; h < spec.heads(); h++) {
            int g = conventions.kv() == KvSharing.CONSECUTIVE ? h / spec.groupSize() : h % spec.kvHeads();
            INDArray qh = q.get(NDArrayIndex.all(), NDArrayIndex.interval(h * dh, (h + 1) * dh));
            INDArray kg = keys.get(NDArrayIndex.interval(0, pos + 1), NDArrayIndex.interval(g * dh, (g + 1) * dh));
            INDArray vg = values.get(NDArrayIndex.interval(0, pos + 1), NDArrayIndex.interval(g * dh, (g + 1) * dh));
            INDArray scores = qh.mmul(kg.transpose()).mul(1.0 / Math.sqrt(dh));
            INDArray p = Transforms.exp(scores.sub(scores.maxNumber().doubleValue()), true);
            p = p.div(p.sumNumber().doubleValue());
            out.get(NDArrayIndex.all(), NDArrayIndex.interval(h * dh, (h + 1) * dh)).assign(p.mmul(vg));
        }
        return out;
    }

    private INDArray weight(String name) {
        INDArray a = w.get(name);
        if (a == null) {
            throw new IllegalArgumentException("no weight named " + name);
        }
        return a;
    }
}
