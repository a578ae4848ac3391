package org.stagecheck.author;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.stagecheck.tensor.Tensor;

/**
 * An independent forward pass of a {@link ModelSpec}, written from the model's math in plain
 * double-precision Java: no builder, no stages, no interpreter; rotary angles
 * computed from the formula rather than read from the f32 tables. The authored programs must
 * match it within f32 rounding, so a wrong program and a wrong law cannot agree by accident.
 */
final class ReferenceTransformer {
    private final ModelSpec spec;
    private final Map<String, Tensor> w;
    /** Per layer, the cached k and v rows by position. */
    private final List<List<double[]>> keys = new ArrayList<>();
    private final List<List<double[]>> values = new ArrayList<>();

    ReferenceTransformer(ModelSpec spec) {
        this(spec, org.stagecheck.spec.ir.DType.F32);
    }

    /** Over the weights as stored in {@code dtype} (the same rounded values the programs read). */
    ReferenceTransformer(ModelSpec spec, org.stagecheck.spec.ir.DType dtype) {
        this.spec = spec;
        this.w = Weights.all(spec, 0, dtype);
        for (int l = 0; l < spec.layers(); l++) {
            keys.add(new ArrayList<>());
            values.add(new ArrayList<>());
        }
    }

    /** Decodes {@code token} at the next position; returns the logits. */
    double[] step(int token) {
        int pos = keys.getFirst().size();
        int d = spec.hidden();
        double[] x = row(w.get("embed"), token, d);
        for (int l = 0; l < spec.layers(); l++) {
            double[] y = rmsNorm(x, w.get("attn_norm.l" + l));
            double[] q = matVec(y, w.get("wq.l" + l), spec.qWidth());
            double[] k = matVec(y, w.get("wk.l" + l), spec.kvWidth());
            double[] v = matVec(y, w.get("wv.l" + l), spec.kvWidth());
            rotate(q, spec.heads(), pos);
            rotate(k, spec.kvHeads(), pos);
            keys.get(l).add(k);
            values.get(l).add(v);
            double[] attn = new double[spec.qWidth()];
            int dh = spec.headDim();
            for (int h = 0; h < spec.heads(); h++) {
                int g = h / spec.groupSize();
                double[] scores = new double[pos + 1];
                double max = Double.NEGATIVE_INFINITY;
                for (int j = 0; j <= pos; j++) {
                    double dot = 0;
                    for (int i = 0; i < dh; i++) {
                        dot += q[h * dh + i] * keys.get(l).get(j)[g * dh + i];
                    }
                    scores[j] = dot / Math.sqrt(dh);
                    max = Math.max(max, scores[j]);
                }
                double z = 0;
                for (int j = 0; j <= pos; j++) {
                    scores[j] = Math.exp(scores[j] - max);
                    z += scores[j];
                }
                for (int j = 0; j <= pos; j++) {
                    for (int i = 0; i < dh; i++) {
                        attn[h * dh + i] += scores[j] / z * values.get(l).get(j)[g * dh + i];
                    }
                }
            }
            add(x, matVec(attn, w.get("wo.l" + l), d));
            double[] y2 = rmsNorm(x, w.get("mlp_norm.l" + l));
            double[] gate = matVec(y2, w.get("w_gate.l" + l), spec.ffn());
            double[] up = matVec(y2, w.get("w_up.l" + l), spec.ffn());
            double[] act = new double[spec.ffn()];
            for (int i = 0; i < act.length; i++) {
                act[i] = gate[i] / (1 + Math.exp(-gate[i])) * up[i];
            }
            add(x, matVec(act, w.get("w_down.l" + l), d));
        }
        return matVec(rmsNorm(x, w.get("final_norm")), w.get("head"), spec.vocab());
    }

    static int argmax(double[] v) {
        int best = 0;
        for (int i = 1; i < v.length; i++) {
            if (v[i] > v[best]) {
                best = i;
            }
        }
        return best;
    }

    private double[] rmsNorm(double[] x, Tensor weight) {
        double ss = 0;
        for (double v : x) {
            ss += v * v;
        }
        double inv = 1.0 / Math.sqrt(ss / x.length + spec.normEps());
        double[] out = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            out[i] = x[i] * inv * weight.getFloat(i);
        }
        return out;
    }

    /** Half-split rotary: element i of each head pairs with i + headDim/2, angle pos * theta^(-2i/headDim). */
    private void rotate(double[] x, int heads, int pos) {
        int dh = spec.headDim();
        int half = dh / 2;
        for (int h = 0; h < heads; h++) {
            for (int i = 0; i < half; i++) {
                double angle = pos * Math.pow(spec.ropeTheta(), -2.0 * i / dh);
                double a = x[h * dh + i];
                double b = x[h * dh + i + half];
                x[h * dh + i] = a * Math.cos(angle) - b * Math.sin(angle);
                x[h * dh + i + half] = b * Math.cos(angle) + a * Math.sin(angle);
            }
        }
    }

    private static double[] matVec(double[] x, Tensor m, int n) {
        double[] out = new double[n];
        for (int k = 0; k < x.length; k++) {
            for (int j = 0; j < n; j++) {
                out[j] += x[k] * m.getFloat((long) k * n + j);
            }
        }
        return out;
    }

    private static double[] row(Tensor m, int r, int n) {
        double[] out = new double[n];
        for (int j = 0; j < n; j++) {
            out[j] = m.getFloat((long) r * n + j);
        }
        return out;
    }

    private static void add(double[] x, double[] y) {
        for (int i = 0; i < x.length; i++) {
            x[i] += y[i];
        }
    }
}
