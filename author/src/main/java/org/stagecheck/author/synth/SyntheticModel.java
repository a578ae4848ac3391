package org.stagecheck.author.synth;

import java.util.Objects;

import org.stagecheck.spec.ir.DType;

/**
 * What a synthetic checkpoint is: family, shapes, rotary and norm settings, the weights' dtype and
 * seed, and how the files are laid out. Shapes follow config.json's names: {@code hidden} is
 * {@code hidden_size}, {@code ffn} is {@code intermediate_size}, {@code headDim} is {@code head_dim}.
 *
 * @param attentionBias q/k/v/o biases (Llama's and Qwen3's {@code attention_bias}); Qwen2 always has q/k/v biases
 * @param mlpBias       gate/up/down biases (Llama's {@code mlp_bias})
 * @param slidingWindow Mistral's {@code sliding_window}, or null for none
 * @param ropeScaling   llama3 frequency scaling, or null for none
 * @param maxShardBytes the largest shard's data in bytes, or 0 for one {@code model.safetensors}
 */
public record SyntheticModel(SynthFamily family, int vocab, int hidden, int layers, int heads, int kvHeads, int headDim, int ffn,
        double ropeTheta, double rmsNormEps, boolean tieWordEmbeddings, boolean attentionBias, boolean mlpBias, Integer slidingWindow,
        Llama3RopeScaling ropeScaling, int maxPositionEmbeddings, DType dtype, long seed, long maxShardBytes, ConfigStyle configStyle) {

    public SyntheticModel {
        Objects.requireNonNull(family, "family");
        Objects.requireNonNull(dtype, "dtype");
        Objects.requireNonNull(configStyle, "configStyle");
        positive("vocab", vocab);
        positive("hidden", hidden);
        positive("layers", layers);
        positive("heads", heads);
        positive("kvHeads", kvHeads);
        positive("headDim", headDim);
        positive("ffn", ffn);
        positive("maxPositionEmbeddings", maxPositionEmbeddings);
        if (heads % kvHeads != 0) {
            throw new IllegalArgumentException(heads + " query heads cannot share " + kvHeads + " KV heads evenly");
        }
        if (headDim % 2 != 0) {
            throw new IllegalArgumentException("rotary pairs element i with i + headDim/2: headDim " + headDim + " must be even");
        }
        if (!(ropeTheta > 0) || !(rmsNormEps > 0)) {
            throw new IllegalArgumentException("ropeTheta and rmsNormEps must be positive, not " + ropeTheta + " and " + rmsNormEps);
        }
        if (attentionBias && family != SynthFamily.LLAMA && family != SynthFamily.QWEN3) {
            throw new IllegalArgumentException("attention_bias is a Llama and Qwen3 setting, not " + family
                    + "'s (Qwen2 always has q/k/v biases, Mistral none)");
        }
        if (mlpBias && family != SynthFamily.LLAMA) {
            throw new IllegalArgumentException("mlp_bias is a Llama setting, not " + family + "'s");
        }
        if (slidingWindow != null && (family != SynthFamily.MISTRAL || slidingWindow <= 0)) {
            throw new IllegalArgumentException("a sliding window is Mistral's and positive, not " + slidingWindow + " for " + family);
        }
        if (dtype != DType.F32 && dtype != DType.BF16 && dtype != DType.F16) {
            throw new IllegalArgumentException("checkpoints are written in f32, bf16 or f16, not " + dtype);
        }
        if (maxShardBytes < 0) {
            throw new IllegalArgumentException("maxShardBytes is 0 (one file) or positive, not " + maxShardBytes);
        }
    }

    private static void positive(String what, int v) {
        if (v <= 0) {
            throw new IllegalArgumentException(what + " must be positive, not " + v);
        }
    }

    /** Whether config.json carries {@code head_dim}: when it is not {@code hidden / heads}, and always for Qwen3. */
    public boolean writesHeadDim() {
        return family == SynthFamily.QWEN3 || (long) heads * headDim != hidden;
    }

    /** A small model of {@code family} (a few thousand parameters, f32, one file), to change with the builder. */
    public static Builder builder(SynthFamily family) {
        return new Builder(family);
    }

    /** A builder holding this model's settings. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Settings for {@link SyntheticModel}; starts from a small model of the family. */
    public static final class Builder {
        private SynthFamily family;
        private int vocab = 96;
        private int hidden = 32;
        private int layers = 2;
        private int heads = 4;
        private int kvHeads = 2;
        private int headDim;
        private int ffn = 64;
        private double ropeTheta;
        private double rmsNormEps;
        private boolean tieWordEmbeddings;
        private boolean attentionBias;
        private boolean mlpBias;
        private Integer slidingWindow;
        private Llama3RopeScaling ropeScaling;
        private int maxPositionEmbeddings = 2048;
        private DType dtype = DType.F32;
        private long seed;
        private long maxShardBytes;
        private ConfigStyle configStyle = ConfigStyle.HUB;

        private Builder(SynthFamily family) {
            this.family = Objects.requireNonNull(family, "family");
            boolean qwen = family == SynthFamily.QWEN2 || family == SynthFamily.QWEN3;
            this.headDim = family == SynthFamily.QWEN3 ? 16 : 8; // Qwen3's head_dim differs from hidden/heads
            this.ropeTheta = qwen ? 1_000_000.0 : 10_000.0;
            this.rmsNormEps = qwen ? 1e-6 : 1e-5;
            this.tieWordEmbeddings = qwen;
        }

        private Builder(SyntheticModel m) {
            family = m.family;
            vocab = m.vocab;
            hidden = m.hidden;
            layers = m.layers;
            heads = m.heads;
            kvHeads = m.kvHeads;
            headDim = m.headDim;
            ffn = m.ffn;
            ropeTheta = m.ropeTheta;
            rmsNormEps = m.rmsNormEps;
            tieWordEmbeddings = m.tieWordEmbeddings;
            attentionBias = m.attentionBias;
            mlpBias = m.mlpBias;
            slidingWindow = m.slidingWindow;
            ropeScaling = m.ropeScaling;
            maxPositionEmbeddings = m.maxPositionEmbeddings;
            dtype = m.dtype;
            seed = m.seed;
            maxShardBytes = m.maxShardBytes;
            configStyle = m.configStyle;
        }

        public Builder family(SynthFamily v) {
            family = v;
            return this;
        }

        public Builder vocab(int v) {
            vocab = v;
            return this;
        }

        public Builder hidden(int v) {
            hidden = v;
            return this;
        }

        public Builder layers(int v) {
            layers = v;
            return this;
        }

        public Builder heads(int v) {
            heads = v;
            return this;
        }

        public Builder kvHeads(int v) {
            kvHeads = v;
            return this;
        }

        public Builder headDim(int v) {
            headDim = v;
            return this;
        }

        public Builder ffn(int v) {
            ffn = v;
            return this;
        }

        public Builder ropeTheta(double v) {
            ropeTheta = v;
            return this;
        }

        public Builder rmsNormEps(double v) {
            rmsNormEps = v;
            return this;
        }

        public Builder tieWordEmbeddings(boolean v) {
            tieWordEmbeddings = v;
            return this;
        }

        public Builder attentionBias(boolean v) {
            attentionBias = v;
            return this;
        }

        public Builder mlpBias(boolean v) {
            mlpBias = v;
            return this;
        }

        public Builder slidingWindow(Integer v) {
            slidingWindow = v;
            return this;
        }

        public Builder ropeScaling(Llama3RopeScaling v) {
            ropeScaling = v;
            return this;
        }

        public Builder maxPositionEmbeddings(int v) {
            maxPositionEmbeddings = v;
            return this;
        }

        public Builder dtype(DType v) {
            dtype = v;
            return this;
        }

        public Builder seed(long v) {
            seed = v;
            return this;
        }

        public Builder maxShardBytes(long v) {
            maxShardBytes = v;
            return this;
        }

        public Builder configStyle(ConfigStyle v) {
            configStyle = v;
            return this;
        }

        public SyntheticModel build() {
            return new SyntheticModel(family, vocab, hidden, layers, heads, kvHeads, headDim, ffn, ropeTheta, rmsNormEps, tieWordEmbeddings,
                    attentionBias, mlpBias, slidingWindow, ropeScaling, maxPositionEmbeddings, dtype, seed, maxShardBytes, configStyle);
        }
    }
}
