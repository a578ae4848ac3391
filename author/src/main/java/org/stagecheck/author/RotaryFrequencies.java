package org.stagecheck.author;

/**
 * The rotary inverse frequencies of the checkpoint families, computed in f32 step by step as
 * their reference code computes them (transformers {@code compute_default_rope_parameters} and
 * {@code _compute_llama3_parameters}), so that the tables a program reads are the reference's:
 * {@code inv[i] = 1 / theta^(2i/Dh)} with the exponent an f32 quotient and the power rounded to
 * f32, then, for Llama 3.1's scaling, the banded rescaling with every operation rounded to f32
 * (the Python scalars taken as f32, as torch does for a scalar with an f32 tensor, and a scalar
 * divided by a tensor computed as torch computes it: the tensor's reciprocal times the scalar).
 */
final class RotaryFrequencies {
    private RotaryFrequencies() {
    }

    /** {@code inv_freq}, {@code Dh/2} values. */
    static float[] f32(ModelSpec spec) {
        int dh = spec.headDim();
        int half = dh / 2;
        float base = (float) spec.ropeTheta();
        float[] inv = new float[half];
        for (int i = 0; i < half; i++) {
            float exponent = (float) (2 * i) / (float) dh;
            float power = (float) Math.pow(base, exponent);
            inv[i] = 1.0f / power;
        }
        return switch (spec.arch().ropeScaling()) {
            case RopeScaling.None _ -> inv;
            case RopeScaling.Llama3 l -> llama3(inv, l);
        };
    }

    private static float[] llama3(float[] inv, RopeScaling.Llama3 s) {
        double old = s.originalMaxPositions();
        float lowWavelen = (float) (old / s.lowFreqFactor());
        float highWavelen = (float) (old / s.highFreqFactor());
        float factor = (float) s.factor();
        float twoPi = (float) (2 * Math.PI);
        float low = (float) s.lowFreqFactor();
        float span = (float) (s.highFreqFactor() - s.lowFreqFactor());
        float[] out = new float[inv.length];
        for (int i = 0; i < inv.length; i++) {
            // torch evaluates `scalar / tensor` as `tensor.reciprocal() * scalar` (Tensor.__rdiv__)
            float wavelen = (1.0f / inv[i]) * twoPi;
            float scaled = wavelen > lowWavelen ? inv[i] / factor : inv[i];
            boolean medium = !(wavelen < highWavelen) && !(wavelen > lowWavelen);
            if (medium) {
                float smooth = ((1.0f / wavelen) * (float) old - low) / span;
                out[i] = (1.0f - smooth) * scaled / factor + smooth * scaled;
            } else {
                out[i] = scaled;
            }
        }
        return out;
    }
}
