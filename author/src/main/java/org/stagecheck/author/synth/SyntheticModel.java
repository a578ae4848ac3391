package org.stagecheck.author.synth;

import java.util.List;
import java.util.Objects;

import org.stagecheck.spec.ir.DType;

/**
 * What a synthetic checkpoint is: family, shapes, rotary and norm settings, the weights' dtype and
 * seed, and how the files are laid out. Shapes follow config.json's names: {@code hidden} is
 * {@code hidden_size}, {@code ffn} is {@code intermediate_size}, {@code headDim} is {@code head_dim}.
 *
 * @param attentionBias q/k/v/o biases (Llama's, Qwen3's and Qwen3-MoE's {@code attention_bias}); Qwen2 and Qwen2-MoE always have q/k/v biases
 * @param mlpBias       gate/up/down biases (Llama's {@code mlp_bias})
 * @param slidingWindow Mistral's and Mixtral's {@code sliding_window}, or null for none
 * @param ropeScaling   llama3 frequency scaling, or null for none
 * @param maxShardBytes the largest shard's data in bytes, or 0 for one {@code model.safetensors}
 * @param moe           the mixture-of-experts settings of the MoE families; null for the dense ones
 */
public record SyntheticModel(SynthFamily family, int vocab, int hidden, int layers, int heads, int kvHeads, int headDim, int ffn,
        double ropeTheta, double rmsNormEps, boolean tieWordEmbeddings, boolean attentionBias, boolean mlpBias, Integer slidingWindow,
        Llama3RopeScaling ropeScaling, int maxPositionEmbeddings, DType dtype, long seed, long maxShardBytes, ConfigStyle configStyle,
        SyntheticMoe moe) {

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
        if (attentionBias && family != SynthFamily.LLAMA && family != SynthFamily.QWEN3 && family != SynthFamily.QWEN3_MOE) {
            throw new IllegalArgumentException("attention_bias is a Llama, Qwen3 and Qwen3-MoE setting, not " + family
                    + "'s (Qwen2 and Qwen2-MoE always have q/k/v biases, Mistral and Mixtral none)");
        }
        if (mlpBias && family != SynthFamily.LLAMA) {
            throw new IllegalArgumentException("mlp_bias is a Llama setting, not " + family + "'s");
        }
        if (slidingWindow != null && (family != SynthFamily.MISTRAL && family != SynthFamily.MIXTRAL || slidingWindow <= 0)) {
            throw new IllegalArgumentException("a sliding window is Mistral's or Mixtral's and positive, not " + slidingWindow + " for " + family);
        }
        if (dtype != DType.F32 && dtype != DType.BF16 && dtype != DType.F16) {
            throw new IllegalArgumentException("checkpoints are written in f32, bf16 or f16, not " + dtype);
        }
        if (maxShardBytes < 0) {
            throw new IllegalArgumentException("maxShardBytes is 0 (one file) or positive, not " + maxShardBytes);
        }
        checkMoe(family, moe, layers, ffn);
    }

    /** A MoE family needs its settings, within what the family can express; a dense family has none. */
    private static void checkMoe(SynthFamily family, SyntheticMoe moe, int layers, int ffn) {
        if (!family.isMoe()) {
            if (moe != null) {
                throw new IllegalArgumentException("mixture-of-experts settings are for Qwen3-MoE, Qwen2-MoE and Mixtral, not " + family);
            }
            return;
        }
        Objects.requireNonNull(moe, "moe");
        for (int l : moe.mlpOnlyLayers()) {
            if (l < 0 || l >= layers) {
                throw new IllegalArgumentException("mlpOnlyLayers " + moe.mlpOnlyLayers() + " names layer " + l + " of " + layers);
            }
        }
        if ((family == SynthFamily.QWEN2_MOE) != (moe.sharedExpertIntermediate() > 0)) {
            throw new IllegalArgumentException("a shared expert is Qwen2-MoE's, and Qwen2-MoE's is required: sharedExpertIntermediate "
                    + moe.sharedExpertIntermediate() + " for " + family);
        }
        if (family == SynthFamily.MIXTRAL && (moe.moeIntermediate() != ffn || !moe.normTopkProb() || moe.decoderSparseStep() != 1
                || !moe.mlpOnlyLayers().isEmpty())) {
            throw new IllegalArgumentException("Mixtral's experts are intermediate_size (" + ffn + ") wide, always renormalised and on every"
                    + " layer: not moeIntermediate " + moe.moeIntermediate() + ", normTopkProb " + moe.normTopkProb() + ", decoderSparseStep "
                    + moe.decoderSparseStep() + ", mlpOnlyLayers " + moe.mlpOnlyLayers());
        }
    }

    private static void positive(String what, int v) {
        if (v <= 0) {
            throw new IllegalArgumentException(what + " must be positive, not " + v);
        }
    }

    /** Whether config.json carries {@code head_dim}: when it is not {@code hidden / heads}, and always for Qwen3 and Qwen3-MoE. */
    public boolean writesHeadDim() {
        return family == SynthFamily.QWEN3 || family == SynthFamily.QWEN3_MOE || (long) heads * headDim != hidden;
    }

    /** Whether layer {@code layer} is a mixture of experts: never in a dense family, else per {@link SyntheticMoe#isSparse}. */
    public boolean isSparseLayer(int layer) {
        return moe != null && moe.isSparse(layer);
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
        // mixture-of-experts settings: null takes the family's default when built
        private Integer numExperts;
        private Integer expertsPerToken;
        private Integer moeIntermediate;
        private Boolean normTopkProb;
        private Integer decoderSparseStep;
        private List<Integer> mlpOnlyLayers;
        private Integer sharedExpertIntermediate;

        private Builder(SynthFamily family) {
            this.family = Objects.requireNonNull(family, "family");
            boolean qwen = family == SynthFamily.QWEN2 || family == SynthFamily.QWEN3;
            boolean qwenMoe = family == SynthFamily.QWEN2_MOE || family == SynthFamily.QWEN3_MOE;
            // Qwen3's head_dim differs from hidden/heads
            this.headDim = family == SynthFamily.QWEN3 || family == SynthFamily.QWEN3_MOE ? 16 : 8;
            this.ropeTheta = qwen || qwenMoe || family == SynthFamily.MIXTRAL ? 1_000_000.0 : 10_000.0;
            this.rmsNormEps = qwen || qwenMoe ? 1e-6 : 1e-5;
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
            if (m.moe != null) {
                numExperts = m.moe.numExperts();
                expertsPerToken = m.moe.expertsPerToken();
                // Mixtral's expert width follows ffn
                moeIntermediate = m.family == SynthFamily.MIXTRAL ? null : m.moe.moeIntermediate();
                normTopkProb = m.moe.normTopkProb();
                decoderSparseStep = m.moe.decoderSparseStep();
                mlpOnlyLayers = m.moe.mlpOnlyLayers();
                sharedExpertIntermediate = m.moe.sharedExpertIntermediate();
            }
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

        /** {@code num_experts} (default 4). */
        public Builder numExperts(int v) {
            numExperts = v;
            return this;
        }

        /** {@code num_experts_per_tok} (default 2). */
        public Builder expertsPerToken(int v) {
            expertsPerToken = v;
            return this;
        }

        /** {@code moe_intermediate_size} (default 24); Mixtral's experts are {@code ffn} wide and refuse another width. */
        public Builder moeIntermediate(int v) {
            moeIntermediate = v;
            return this;
        }

        /** {@code norm_topk_prob} (default: Qwen3-MoE true, as Qwen3-30B-A3B; Qwen2-MoE false, as Qwen1.5-MoE; Mixtral always true). */
        public Builder normTopkProb(boolean v) {
            normTopkProb = v;
            return this;
        }

        /** {@code decoder_sparse_step} (default 1: every layer sparse). */
        public Builder decoderSparseStep(int v) {
            decoderSparseStep = v;
            return this;
        }

        /** {@code mlp_only_layers} (default none). */
        public Builder mlpOnlyLayers(List<Integer> v) {
            mlpOnlyLayers = List.copyOf(v);
            return this;
        }

        /** Qwen2-MoE's {@code shared_expert_intermediate_size} (default 40). */
        public Builder sharedExpertIntermediate(int v) {
            sharedExpertIntermediate = v;
            return this;
        }

        public SyntheticModel build() {
            return new SyntheticModel(family, vocab, hidden, layers, heads, kvHeads, headDim, ffn, ropeTheta, rmsNormEps, tieWordEmbeddings,
                    attentionBias, mlpBias, slidingWindow, ropeScaling, maxPositionEmbeddings, dtype, seed, maxShardBytes, configStyle, moe());
        }

        /** The MoE family's settings, defaults filled in; null for a dense family, which refuses any MoE setting. */
        private SyntheticMoe moe() {
            if (!family.isMoe()) {
                if (numExperts != null || expertsPerToken != null || moeIntermediate != null || normTopkProb != null
                        || decoderSparseStep != null || mlpOnlyLayers != null || sharedExpertIntermediate != null) {
                    throw new IllegalArgumentException("mixture-of-experts settings are for Qwen3-MoE, Qwen2-MoE and Mixtral, not " + family);
                }
                return null;
            }
            boolean mixtral = family == SynthFamily.MIXTRAL;
            return new SyntheticMoe(
                    numExperts == null ? 4 : numExperts,
                    expertsPerToken == null ? 2 : expertsPerToken,
                    moeIntermediate != null ? moeIntermediate : mixtral ? ffn : 24,
                    normTopkProb != null ? normTopkProb : family != SynthFamily.QWEN2_MOE,
                    decoderSparseStep == null ? 1 : decoderSparseStep,
                    mlpOnlyLayers == null ? List.of() : mlpOnlyLayers,
                    sharedExpertIntermediate != null ? sharedExpertIntermediate : family == SynthFamily.QWEN2_MOE ? 40 : 0);
        }
    }
}
