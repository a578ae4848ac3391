package org.stagecheck.author.oracle;

/** The elementwise pieces of the layer, in double: RMSNorm (plain {@code w}, not {@code 1 + w}), the gated silu MLP. */
final class Ops64 {
    private Ops64() {}

    /** {@code x * rsqrt(mean(x^2) + eps) * w} over {@code x[from .. from + w.length)}, written to a new array. */
    static double[] rmsNorm(double[] x, int from, double[] w, double eps) {
        double sumSquares = 0;
        for (int i = 0; i < w.length; i++) {
            sumSquares += x[from + i] * x[from + i];
        }
        double inverseRms = 1.0 / Math.sqrt(sumSquares / w.length + eps);
        double[] y = new double[w.length];
        for (int i = 0; i < w.length; i++) {
            y[i] = x[from + i] * inverseRms * w[i];
        }
        return y;
    }

    static double[] rmsNorm(double[] x, double[] w, double eps) {
        return rmsNorm(x, 0, w, eps);
    }

    /** Qwen3's q_norm/k_norm: RMSNorm over each head of {@code x} (heads of {@code w.length} back to back), in place. */
    static void rmsNormHeads(double[] x, int heads, double[] w, double eps) {
        for (int h = 0; h < heads; h++) {
            System.arraycopy(rmsNorm(x, h * w.length, w, eps), 0, x, h * w.length, w.length);
        }
    }

    static double silu(double x) {
        return x / (1.0 + Math.exp(-x));
    }

    /** {@code down(silu(gate(y)) * up(y))}. */
    static double[] mlp(DecoderWeights64.Layer layer, double[] y) {
        return gatedMlp(layer.gate(), layer.up(), layer.down(), y);
    }

    /** {@code down(silu(gate(y)) * up(y))}. */
    static double[] gatedMlp(Linear64 gate, Linear64 up, Linear64 down, double[] y) {
        double[] g = gate.apply(y);
        double[] u = up.apply(y);
        for (int i = 0; i < g.length; i++) {
            g[i] = silu(g[i]) * u[i];
        }
        return down.apply(g);
    }

    static double[] add(double[] a, double[] b) {
        double[] s = new double[a.length];
        for (int i = 0; i < a.length; i++) {
            s[i] = a[i] + b[i];
        }
        return s;
    }
}
