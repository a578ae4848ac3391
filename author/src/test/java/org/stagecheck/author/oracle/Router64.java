package org.stagecheck.author.oracle;

import java.util.Arrays;

/**
 * The MoE router of FAMILIES.md ({@code Qwen3MoeTopKRouter}, {@code Qwen2MoeTopKRouter}, Mixtral's):
 * softmax over ALL experts' logits (in double here, f32 in the reference), the top k of those
 * probabilities, then, only when renormalising, each of the k divided by their sum. Without
 * renormalisation the k weights are the full-softmax probabilities and sum to less than 1.
 *
 * <p>Ties: {@code torch.topk} leaves the order of equal values undefined; here equal probabilities
 * go to the lower expert index first. That is a convention, not the reference's behaviour: a test
 * should keep {@link RowRouting64#probabilityGap()} clear of rounding instead of relying on it.
 */
final class Router64 {
    private Router64() {}

    static RowRouting64 route(double[] logits, int k, boolean renormalise) {
        int e = logits.length;
        if (k < 1 || k > e) {
            throw new IllegalArgumentException("top " + k + " of " + e + " experts");
        }
        double max = Double.NEGATIVE_INFINITY;
        for (double l : logits) {
            max = Math.max(max, l);
        }
        double sum = 0;
        double[] p = new double[e];
        for (int i = 0; i < e; i++) {
            p[i] = Math.exp(logits[i] - max);
            sum += p[i];
        }
        for (int i = 0; i < e; i++) {
            p[i] /= sum;
        }
        // stable sort by descending probability keeps the lower index first among equals
        Integer[] order = new Integer[e];
        for (int i = 0; i < e; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Double.compare(p[b], p[a]));
        int[] experts = new int[k];
        double[] weights = new double[k];
        double chosen = 0;
        for (int i = 0; i < k; i++) {
            experts[i] = order[i];
            weights[i] = p[order[i]];
            chosen += weights[i];
        }
        if (renormalise) {
            for (int i = 0; i < k; i++) {
                weights[i] /= chosen;
            }
        }
        double probabilityGap = k == e ? Double.POSITIVE_INFINITY : p[order[k - 1]] - p[order[k]];
        double logitGap = k == e ? Double.POSITIVE_INFINITY : logits[order[k - 1]] - logits[order[k]];
        return new RowRouting64(experts, weights, p, probabilityGap, logitGap);
    }
}
