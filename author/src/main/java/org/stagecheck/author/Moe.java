package org.stagecheck.author;

import java.util.List;

/**
 * A mixture-of-experts MLP (docs/author.md, "Mixture of experts"): in a sparse layer a router
 * ({@code [D, E]}) scores the E experts of each row, the softmax of the scores (over all E) gives
 * their probabilities, the {@code topK} most probable experts are chosen (ties to the lower
 * index), their probabilities renormalised to sum to 1 when {@code normTopK}, and the layer's
 * output is the sum, in ascending expert index, of each chosen expert's gated MLP (width
 * {@code expertFfn}) scaled by its weight; with {@code sharedFfn > 0} a shared expert scaled by
 * {@code sigmoid(y . shared_expert_gate)} is added (Qwen2-MoE). Layer l is sparse when it is not
 * in {@code denseLayers} and {@code (l + 1) % sparseStep == 0}; a dense layer keeps the model's
 * plain MLP of width {@code ffn}. {@link #NONE} (no experts) is a dense model.
 */
public record Moe(int experts, int topK, int expertFfn, boolean normTopK, int sparseStep, List<Integer> denseLayers,
                  int sharedFfn) {
    /** No experts: every layer dense. */
    public static final Moe NONE = new Moe(0, 0, 0, false, 1, List.of(), 0);

    public Moe {
        denseLayers = List.copyOf(denseLayers);
        if (experts < 0 || sharedFfn < 0 || sparseStep < 1) {
            throw new IllegalArgumentException("experts and the shared expert's width are at least 0 and the sparse step at least 1");
        }
        if (experts > 0 && (topK < 1 || topK > experts || expertFfn < 1)) {
            throw new IllegalArgumentException("a mixture of " + experts + " experts needs 1 <= topK <= experts and an expert width"
                    + " of at least 1, not topK " + topK + ", width " + expertFfn);
        }
        if (experts == 0 && (topK != 0 || expertFfn != 0 || sharedFfn != 0 || normTopK)) {
            throw new IllegalArgumentException("a model without experts has no topK, expert width or shared expert");
        }
    }

    /** Whether the model has experts at all. */
    public boolean present() {
        return experts > 0;
    }

    /** Whether layer {@code l} is a sparse (mixture-of-experts) layer. */
    public boolean sparse(int l) {
        return present() && !denseLayers.contains(l) && (l + 1) % sparseStep == 0;
    }

    /** Whether a sparse layer adds a shared expert. */
    public boolean shared() {
        return sharedFfn > 0;
    }
}
