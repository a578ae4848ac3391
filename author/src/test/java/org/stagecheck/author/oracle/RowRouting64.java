package org.stagecheck.author.oracle;

import java.util.Arrays;

/**
 * One row's routing in one sparse layer: the k chosen experts in {@code torch.topk}'s order (most
 * probable first; equal probabilities: lower expert index first), their weights in the same order
 * (renormalised when the config says so), the softmax over all experts, and the margin of the
 * choice. Arrays are the oracle's own copies; being arrays, they make {@code equals} an identity
 * test, so compare routings field by field ({@link #expertsByIndex()} ignores the order of the choice).
 *
 * @param experts        the chosen expert indices, most probable first
 * @param weights        {@code weights[i]} scales expert {@code experts[i]}'s output
 * @param probabilities  the router softmax over all E experts, in expert order
 * @param probabilityGap the k-th largest probability minus the (k+1)-th; 0 on a tie; +infinity when k = E (no rival).
 *                       A test comparing a program's routing with the oracle's should require it clear of rounding.
 * @param logitGap       the same margin between router logits (softmax is monotone, so the two gaps pick the same rival)
 */
public record RowRouting64(int[] experts, double[] weights, double[] probabilities, double probabilityGap, double logitGap) {

    /** The chosen experts in ascending index order, the order their outputs are summed in. */
    public int[] expertsByIndex() {
        int[] sorted = experts.clone();
        Arrays.sort(sorted);
        return sorted;
    }

    /** The weight of {@code expert}, 0 when it was not chosen. */
    public double weightOf(int expert) {
        for (int i = 0; i < experts.length; i++) {
            if (experts[i] == expert) {
                return weights[i];
            }
        }
        return 0;
    }

    @Override
    public String toString() {
        return "experts " + Arrays.toString(experts) + " weights " + Arrays.toString(weights) + " gap " + probabilityGap;
    }
}
