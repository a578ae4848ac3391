package org.stagecheck.author.oracle;

/**
 * The rotary embedding as the families' reference computes it. {@code inv_freq}, its llama3
 * scaling and the angle {@code pos * inv_freq} are f32 in the reference, and those roundings move
 * the angle by far more than double rounding would, so they are done here in f32, operation by
 * operation as the reference does them: {@code inv_freq[i] = 1 / theta^(f32(2i) / f32(Dh))} with
 * theta rounded to f32; torch evaluates {@code c / t} as {@code reciprocal(t) * c}, so
 * {@code wavelen = (1/inv) * f32(2 pi)} and {@code old / wavelen = (1/wavelen) * f32(old)}; Python
 * scalars enter f32 arithmetic rounded to f32. The one step that can differ from torch is the f32
 * power: here it is the double power rounded once to f32 (correctly rounded in practice), while
 * torch's vectorised powf may be one ulp away. cos and sin of the f32 angle are taken in double.
 * Rotation is {@code rotate_half}: element i pairs with i + Dh/2.
 */
public final class RotaryFrequencies64 {
    private final float[] invFreq;

    private RotaryFrequencies64(float[] invFreq) {
        this.invFreq = invFreq;
    }

    public static RotaryFrequencies64 of(int headDim, double theta, HfConfig64.Llama3Scaling llama3) {
        float[] inv = defaultInverseFrequencies(headDim, theta);
        if (llama3 != null) {
            scaleLlama3(inv, llama3);
        }
        return new RotaryFrequencies64(inv);
    }

    public static RotaryFrequencies64 of(HfConfig64 c) {
        return of(c.headDim(), c.ropeTheta(), c.llama3());
    }

    /** {@code compute_default_rope_parameters}: {@code 1.0 / (base ** (arange(0, dim, 2).float() / dim))} in f32. */
    private static float[] defaultInverseFrequencies(int headDim, double theta) {
        float base = (float) theta;
        float[] inv = new float[headDim / 2];
        for (int i = 0; i < inv.length; i++) {
            float exponent = (float) (2 * i) / (float) headDim;
            float power = (float) Math.pow(base, exponent);
            inv[i] = 1f / power;
        }
        return inv;
    }

    /** {@code _compute_llama3_parameters}, each tensor operation an f32 operation. */
    private static void scaleLlama3(float[] inv, HfConfig64.Llama3Scaling s) {
        float factor = (float) s.factor();
        float low = (float) s.lowFreqFactor();
        float old = (float) s.originalMaxPositions();
        float lowFreqWavelen = (float) (s.originalMaxPositions() / s.lowFreqFactor());
        float highFreqWavelen = (float) (s.originalMaxPositions() / s.highFreqFactor());
        float bandWidth = (float) (s.highFreqFactor() - s.lowFreqFactor());
        float twoPi = (float) (2 * Math.PI);
        for (int i = 0; i < inv.length; i++) {
            float wavelen = (1f / inv[i]) * twoPi;
            float scaled = wavelen > lowFreqWavelen ? inv[i] / factor : inv[i];
            float smooth = ((1f / wavelen) * old - low) / bandWidth;
            float smoothed = (1f - smooth) * scaled / factor + smooth * scaled;
            boolean medium = !(wavelen < highFreqWavelen) && !(wavelen > lowFreqWavelen);
            inv[i] = medium ? smoothed : scaled;
        }
    }

    public int pairs() {
        return invFreq.length;
    }

    /** {@code inv_freq[i]}, exactly the f32 value. */
    public float inverseFrequency(int i) {
        return invFreq[i];
    }

    /** The f32 angle {@code pos * inv_freq[i]} (the reference's f32 matmul of one term). */
    public float angle(int pos, int i) {
        return (float) pos * invFreq[i];
    }

    /** Rotates the {@code heads} heads of {@code x} (each {@code 2 * pairs()} long, back to back) to position {@code pos}, in place. */
    public void rotate(double[] x, int heads, int pos) {
        int half = invFreq.length;
        for (int i = 0; i < half; i++) {
            double a = angle(pos, i);
            double cos = Math.cos(a);
            double sin = Math.sin(a);
            for (int h = 0; h < heads; h++) {
                int o = h * 2 * half;
                double x1 = x[o + i];
                double x2 = x[o + i + half];
                x[o + i] = x1 * cos - x2 * sin;
                x[o + i + half] = x2 * cos + x1 * sin;
            }
        }
    }
}
