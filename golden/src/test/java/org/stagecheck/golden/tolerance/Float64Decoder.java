package org.stagecheck.golden.tolerance;

import java.util.LinkedHashMap;
import java.util.Map;

import org.stagecheck.author.ModelSpec;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;

/**
 * An independent backend for the authored decode step of a single chip: the transformer's math
 * written out in plain float64 Java from the model's definition (docs/author.md), reading the
 * same bound tensors the program reads (weights, rotary tables, KV caches, the token) and
 * rounding to f32 only where it writes its outputs. No interpreter, no stages, no derived
 * bounds: a correct implementation that rounds nothing the way the reference does, as a backend
 * computing in higher precision would. Transcendentals through StrictMath so the figures are the
 * same on every machine.
 *
 * <p>With a {@link Bug} it is a backend with that bug, so the tolerance's power to reject one is
 * measured on the same footing.
 */
final class Float64Decoder {
    /** What the backend computes differently; {@link #SOFTMAX_WITHOUT_MAX} is the same math (a correct backend). */
    enum Bug {
        NONE,
        /** exp(s) / sum exp(s), without subtracting the maximum first: the same math, rounded differently. */
        SOFTMAX_WITHOUT_MAX,
        /** Every RMS norm's epsilon 1e-3 instead of the model's. */
        NORM_EPS,
        /** Only the final norm's epsilon 1e-3 (the head's input). */
        FINAL_NORM_EPS,
        /** The last layer's MLP residual added twice. */
        LAST_RESIDUAL_TWICE,
        /** The logits times 1.25. */
        LOGITS_SCALED,
        /** The last layer's key rotation with the sine's sign flipped. */
        LAST_ROTARY_SIGN,
        /** The last layer's attention scores scaled by 1/headDim instead of 1/sqrt(headDim). */
        LAST_ATTENTION_SCALE,
        /** The last layer's MLP activation rounded to bf16 (a precision the program does not ask for). */
        LAST_ACTIVATION_BF16,
        /** The head's weight read as its transpose's neighbour: column j uses row j+1's last element (an indexing slip at one place). */
        HEAD_ONE_ELEMENT_OFF;

        /** The column title of docs/golden.md's table. */
        String label() {
            return switch (this) {
                case NONE -> "correct";
                case SOFTMAX_WITHOUT_MAX -> "softmax without max";
                case NORM_EPS -> "norm eps 1e-3";
                case FINAL_NORM_EPS -> "final norm eps 1e-3";
                case LAST_RESIDUAL_TWICE -> "last residual twice";
                case LOGITS_SCALED -> "logits x 1.25";
                case LAST_ROTARY_SIGN -> "last rotary sign";
                case LAST_ATTENTION_SCALE -> "last attention 1/d";
                case LAST_ACTIVATION_BF16 -> "last activation bf16";
                case HEAD_ONE_ELEMENT_OFF -> "head one element off";
            };
        }
    }

    private final ModelSpec spec;
    private final Bug bug;

    Float64Decoder(ModelSpec spec, Bug bug) {
        this.spec = spec;
        this.bug = bug;
    }

    /** The step's outputs (caches with the new row, logits, next token), f32 and i32 as the program declares them. */
    Map<String, Tensor> step(Map<String, Tensor> bound, int pos) {
        int d = spec.hidden();
        int dh = spec.headDim();
        int ctx = Math.toIntExact(bound.get("rope_cos").shape().dim(0));
        int token = bound.get("tokens").getInt(0);
        double[] x = row(bound.get("embed"), token, d);
        Map<String, Tensor> out = new LinkedHashMap<>();
        int last = spec.layers() - 1;
        for (int l = 0; l < spec.layers(); l++) {
            double eps = bug == Bug.NORM_EPS ? 1e-3 : spec.normEps();
            double[] y = rmsNorm(x, bound.get("attn_norm.l" + l), eps);
            double[] q = matVec(y, bound.get("wq.l" + l), spec.qWidth());
            double[] k = matVec(y, bound.get("wk.l" + l), spec.kvWidth());
            double[] v = matVec(y, bound.get("wv.l" + l), spec.kvWidth());
            rotate(q, spec.heads(), bound, pos, false);
            rotate(k, spec.kvHeads(), bound, pos, bug == Bug.LAST_ROTARY_SIGN && l == last);
            double[] keys = bound.get("kv_k.l" + l).toDoubles();
            double[] values = bound.get("kv_v.l" + l).toDoubles();
            System.arraycopy(k, 0, keys, pos * spec.kvWidth(), spec.kvWidth());
            System.arraycopy(v, 0, values, pos * spec.kvWidth(), spec.kvWidth());
            out.put("kv_k.l" + l, f32(keys, Shape.of(ctx, spec.kvWidth())));
            out.put("kv_v.l" + l, f32(values, Shape.of(ctx, spec.kvWidth())));
            double scale = bug == Bug.LAST_ATTENTION_SCALE && l == last ? 1.0 / dh : 1.0 / Math.sqrt(dh);
            double[] attn = attention(q, keys, values, pos, scale);
            double[] o = matVec(attn, bound.get("wo.l" + l), d);
            add(x, o);
            double[] y2 = rmsNorm(x, bound.get("mlp_norm.l" + l), eps);
            double[] gate = matVec(y2, bound.get("w_gate.l" + l), spec.ffn());
            double[] up = matVec(y2, bound.get("w_up.l" + l), spec.ffn());
            double[] act = new double[spec.ffn()];
            for (int i = 0; i < act.length; i++) {
                act[i] = gate[i] / (1 + StrictMath.exp(-gate[i])) * up[i];
                if (bug == Bug.LAST_ACTIVATION_BF16 && l == last) {
                    act[i] = org.stagecheck.tensor.numeric.Bf16.toFloat(org.stagecheck.tensor.numeric.Bf16.fromFloat((float) act[i]));
                }
            }
            double[] down = matVec(act, bound.get("w_down.l" + l), d);
            add(x, down);
            if (bug == Bug.LAST_RESIDUAL_TWICE && l == last) {
                add(x, down);
            }
        }
        double finalEps = bug == Bug.NORM_EPS || bug == Bug.FINAL_NORM_EPS ? 1e-3 : spec.normEps();
        Tensor head = bound.get("head");
        double[] logits = matVec(rmsNorm(x, bound.get("final_norm"), finalEps), head, spec.vocab());
        if (bug == Bug.HEAD_ONE_ELEMENT_OFF) {
            double[] y = rmsNorm(x, bound.get("final_norm"), finalEps);
            int j = spec.vocab() / 2;
            logits[j] += y[d - 1] * (head.getDouble((long) (d - 1) * spec.vocab() + j + 1) - head.getDouble((long) (d - 1) * spec.vocab() + j));
        }
        if (bug == Bug.LOGITS_SCALED) {
            for (int i = 0; i < logits.length; i++) {
                logits[i] *= 1.25;
            }
        }
        out.put("logits", f32(logits, Shape.of(1, spec.vocab())));
        int best = 0;
        for (int i = 1; i < logits.length; i++) {
            if ((float) logits[i] > (float) logits[best]) {
                best = i;
            }
        }
        out.put("next_token", Tensor.fromInts(Shape.of(1), new int[] {best}));
        return out;
    }

    private double[] attention(double[] q, double[] keys, double[] values, int pos, double scale) {
        int dh = spec.headDim();
        int w = spec.kvWidth();
        double[] attn = new double[spec.qWidth()];
        for (int h = 0; h < spec.heads(); h++) {
            int g = h / spec.groupSize();
            double[] s = new double[pos + 1];
            double max = Double.NEGATIVE_INFINITY;
            for (int j = 0; j <= pos; j++) {
                double dot = 0;
                for (int i = 0; i < dh; i++) {
                    dot += q[h * dh + i] * keys[j * w + g * dh + i];
                }
                s[j] = dot * scale;
                max = Math.max(max, s[j]);
            }
            double shift = bug == Bug.SOFTMAX_WITHOUT_MAX ? 0 : max;
            double z = 0;
            for (int j = 0; j <= pos; j++) {
                s[j] = StrictMath.exp(s[j] - shift);
                z += s[j];
            }
            for (int j = 0; j <= pos; j++) {
                for (int i = 0; i < dh; i++) {
                    attn[h * dh + i] += s[j] / z * values[j * w + g * dh + i];
                }
            }
        }
        return attn;
    }

    private static double[] rmsNorm(double[] x, Tensor weight, double eps) {
        double ss = 0;
        for (double v : x) {
            ss += v * v;
        }
        double inv = 1.0 / Math.sqrt(ss / x.length + eps);
        double[] out = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            out[i] = x[i] * inv * weight.getDouble(i);
        }
        return out;
    }

    /** Half-split rotary from the bound tables: element i of a head pairs with i + headDim/2. */
    private void rotate(double[] x, int heads, Map<String, Tensor> bound, int pos, boolean flipSine) {
        int dh = spec.headDim();
        int half = dh / 2;
        Tensor cos = bound.get("rope_cos");
        Tensor sin = bound.get("rope_sin");
        for (int h = 0; h < heads; h++) {
            for (int i = 0; i < half; i++) {
                double c = cos.getDouble((long) pos * half + i);
                double s = (flipSine ? -1 : 1) * sin.getDouble((long) pos * half + i);
                double a = x[h * dh + i];
                double b = x[h * dh + i + half];
                x[h * dh + i] = a * c - b * s;
                x[h * dh + i + half] = b * c + a * s;
            }
        }
    }

    private static double[] matVec(double[] x, Tensor m, int n) {
        double[] out = new double[n];
        for (int k = 0; k < x.length; k++) {
            for (int j = 0; j < n; j++) {
                out[j] += x[k] * m.getDouble((long) k * n + j);
            }
        }
        return out;
    }

    private static double[] row(Tensor m, int r, int n) {
        double[] out = new double[n];
        for (int j = 0; j < n; j++) {
            out[j] = m.getDouble((long) r * n + j);
        }
        return out;
    }

    private static void add(double[] x, double[] y) {
        for (int i = 0; i < x.length; i++) {
            x[i] += y[i];
        }
    }

    private static Tensor f32(double[] v, Shape shape) {
        float[] f = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            f[i] = (float) v[i];
        }
        return Tensor.wrapFloats(shape, f);
    }
}
