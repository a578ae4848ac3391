package org.stagecheck.author;

import java.util.Objects;

/**
 * The parts of a model's definition beyond its sizes (docs/author.md, "Checkpoints"): which family
 * it follows, which projections carry biases, whether q and k are RMS-normed per head before the
 * rotary (Qwen3), the sliding attention window (Mistral), the rotary rescaling (Llama 3.1) and
 * whether the head is the transposed embedding. stagecheck's own generated model is
 * {@link #plain()}; every feature also works on generated weights, so the laws cover them
 * without a checkpoint.
 *
 * @param family         where the definition comes from
 * @param qkvBias        q, k and v projections add a bias (Qwen2; Llama {@code attention_bias})
 * @param outputBias     the attention output projection adds a bias (Llama and Qwen3 {@code attention_bias})
 * @param mlpBias        gate, up and down projections add a bias (Llama {@code mlp_bias})
 * @param qkNorm         per-head RMSNorm of q and k before the rotary (Qwen3)
 * @param slidingWindow  0 for full attention, else W: position p attends to positions
 *                       {@code p-W+1 .. p} and its KV cache is a ring of W slots
 * @param ropeScaling    rescaling of the rotary frequencies
 * @param tiedEmbeddings the head is the transposed embedding (no separate head weight)
 * @param moe            the mixture of experts of the sparse layers ({@link Moe#NONE}: a dense model)
 */
public record Architecture(Family family, boolean qkvBias, boolean outputBias, boolean mlpBias, boolean qkNorm,
                           int slidingWindow, RopeScaling ropeScaling, boolean tiedEmbeddings, Moe moe) {
    public Architecture {
        Objects.requireNonNull(family, "family");
        Objects.requireNonNull(ropeScaling, "ropeScaling");
        Objects.requireNonNull(moe, "moe");
        if (slidingWindow < 0) {
            throw new IllegalArgumentException("the sliding window is 0 (none) or positive, not " + slidingWindow);
        }
    }

    /** A dense model ({@link Moe#NONE}). */
    public Architecture(Family family, boolean qkvBias, boolean outputBias, boolean mlpBias, boolean qkNorm,
                        int slidingWindow, RopeScaling ropeScaling, boolean tiedEmbeddings) {
        this(family, qkvBias, outputBias, mlpBias, qkNorm, slidingWindow, ropeScaling, tiedEmbeddings, Moe.NONE);
    }

    /** stagecheck's generated Llama-style model: no biases, no q/k norm, full attention, no rescaling, a separate head. */
    public static Architecture plain() {
        return new Architecture(Family.STAGECHECK, false, false, false, false, 0, RopeScaling.NONE, false);
    }

    public Architecture withSlidingWindow(int window) {
        return new Architecture(family, qkvBias, outputBias, mlpBias, qkNorm, window, ropeScaling, tiedEmbeddings, moe);
    }

    public Architecture withMoe(Moe other) {
        return new Architecture(family, qkvBias, outputBias, mlpBias, qkNorm, slidingWindow, ropeScaling, tiedEmbeddings, other);
    }

    /** Whether this is {@link #plain()}. */
    public boolean isPlain() {
        return equals(plain());
    }

    /**
     * The KV cache rows of one sequence for a cut over {@code ctx} positions: {@code ctx}, or the
     * window when it is smaller (then the cache is a ring: position p lives in slot p mod W).
     */
    public int cacheSlots(int ctx) {
        return slidingWindow > 0 && slidingWindow < ctx ? slidingWindow : ctx;
    }

    /** Whether a cut over {@code ctx} positions keeps its cache as a ring that wraps around. */
    public boolean ring(int ctx) {
        return slidingWindow > 0 && slidingWindow < ctx;
    }
}
