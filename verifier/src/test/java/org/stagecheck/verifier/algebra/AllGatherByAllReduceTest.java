package org.stagecheck.verifier.algebra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An all-gather written as an all-reduce (docs/verifier.md, "All-gathers built from
 * all-reduces"): the parent computes {@code y = tanh(x w)} ({@code [2, 8]}); each chip computes
 * its 4 columns (w's columns {@code [4c, 4c+4)}), lays them beside padding in a buffer as wide as
 * {@code y}, and an all-reduce gives every chip all of {@code y}.
 */
class AllGatherByAllReduceTest {

    private static SplitText parent() {
        return GatherSplits.parent(2, 8, 8, "tanh(in0)");
    }

    /**
     * Chip c's columns are w's {@code [columns[c], columns[c] + 4)}, laid at {@code [placed[c], placed[c] + 4)}
     * beside {@code padding} (a constant fill); all-reduced with {@code pool}.
     */
    private static SplitText split(int[] columns, int[] placed, String padding, String pool) {
        return split(columns, placed, padding, pool, "tanh(in0)");
    }

    /** As above, each chip's columns being {@code act} of its product. */
    private static SplitText split(int[] columns, int[] placed, String padding, String pool, String act) {
        SplitText s = new SplitText("all-gather", 2);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, c, 2, 8).shard("x." + c, "x", 0, 0, 2, 2);
            s.input("w." + c, c, 8, 4).shard("w." + c, "w", 1, columns[c], columns[c] + 4, 8);
            s.matmul(c, "h." + c, "x." + c, "w." + c, false, false).generic(c, "a." + c, new int[] {2, 4}, act, "h." + c);
            s.generic(c, "pad." + c, new int[] {2, 4}, padding, "a." + c);
            if (placed[c] == 0) {
                s.concat(c, "g." + c, 1, "a." + c, "pad." + c);
            } else {
                s.concat(c, "g." + c, 1, "pad." + c, "a." + c);
            }
        }
        s.allReduce("gather", pool, "y", List.of("g.0", "g.1"), List.of("y.0", "y.1"));
        for (int c = 0; c < 2; c++) {
            s.output("y." + c, c, "y." + c).shard("y." + c, "y", 0, 0, 2, 2);
        }
        return s;
    }

    private static final int[] OWN = {0, 4};
    private static final String ZEROS = "0.0";

    private static void accepted(SplitText.Judged j) {
        assertThat(j.agrees()).as(j.toString()).isTrue();
        assertThat(j.alone().codes()).as(j.toString()).isEmpty();
        assertThat(j.withParent().codes()).as(j.toString()).isEmpty();
    }

    @Test
    void columns_padded_with_zeros_under_a_sum_all_reduce_are_an_all_gather() {
        accepted(split(OWN, OWN, ZEROS, "sum").judge(parent()));
    }

    @Test
    void columns_padded_with_minus_infinity_under_a_max_all_reduce_are_an_all_gather() {
        accepted(split(OWN, OWN, "-inf", "max").judge(parent()));
    }

    @Test
    void columns_laid_at_another_chips_place_are_rejected() {
        // chip 1 lays its columns [4, 8) at [0, 4): the chips' buffers are different windows of y
        SplitText.Judged j = split(OWN, new int[] {0, 0}, ZEROS, "sum").judge(parent());
        assertThat(j.agrees()).as(j.toString()).isFalse();
        assertThat(j.alone().codes()).as(j.toString()).containsExactly("ALLREDUCE_VIEW_MISMATCH");
        assertThat(j.alone().diagnostics().getFirst().stageId()).isEqualTo("gather");
    }

    @Test
    void overlapping_columns_are_rejected() {
        // both chips compute columns [0, 4) and lay them there: counted twice, [4, 8) never
        SplitText.Judged j = split(new int[] {0, 0}, new int[] {0, 0}, ZEROS, "sum").judge(parent());
        assertThat(j.agrees()).as(j.toString()).isFalse();
        assertThat(j.alone().codes()).as(j.toString()).containsExactly("ALLREDUCE_OVERLAP");
    }

    @Test
    void padding_the_pool_does_not_ignore_is_rejected() {
        // zeros under a max: max(tanh(v), 0) is not tanh(v) where it is negative
        SplitText.Judged j = split(OWN, OWN, ZEROS, "max").judge(parent());
        assertThat(j.agrees()).as(j.toString()).isFalse();
        assertThat(j.alone().codes()).as(j.toString()).containsExactly("ALLREDUCE_POOL");
        // ones under a sum: no padding at all
        SplitText.Judged ones = split(OWN, OWN, "1.0", "sum").judge(parent());
        assertThat(ones.agrees()).as(ones.toString()).isFalse();
        assertThat(ones.alone().holds()).as(ones.toString()).isFalse();
    }

    @Test
    void zeros_under_a_max_all_reduce_gather_values_that_are_never_negative() {
        // max(v, 0) = v for v >= 0: the zeros act as -inf would (exp, sigmoid, abs, relu of the product)
        for (String act : new String[] {"exp(in0)", "sigmoid(in0)", "abs(in0)", "max(in0, 0.0)", "mul(exp(in0), 2.0)"}) {
            SplitText.Judged j = split(OWN, OWN, ZEROS, "max", act).judge(GatherSplits.parent(2, 8, 8, act));
            assertThat(j.agrees()).as(act + ": " + j).isTrue();
            assertThat(j.alone().codes()).as(act + ": " + j).isEmpty();
            assertThat(j.withParent().codes()).as(act + ": " + j).isEmpty();
        }
    }

    @Test
    void zeros_under_a_min_all_reduce_gather_values_that_are_never_positive() {
        String act = "neg(exp(in0))";
        SplitText.Judged j = split(OWN, OWN, ZEROS, "min", act).judge(GatherSplits.parent(2, 8, 8, act));
        assertThat(j.agrees()).as(j.toString()).isTrue();
        assertThat(j.withParent().codes()).as(j.toString()).isEmpty();
    }

    @Test
    void zeros_under_a_max_of_values_of_either_sign_or_under_the_other_pool_are_rejected() {
        // tanh is negative for a negative product; exp under a min gives the zeros back
        for (String[] c : new String[][] {{"tanh(in0)", "max"}, {"mul(exp(in0), -1.0)", "max"}, {"exp(in0)", "min"}}) {
            SplitText.Judged j = split(OWN, OWN, ZEROS, c[1], c[0]).judge(GatherSplits.parent(2, 8, 8, c[0]));
            assertThat(j.agrees()).as(c[0] + " under " + c[1] + ": " + j).isFalse();
            assertThat(j.alone().codes()).as(c[0] + " under " + c[1] + ": " + j).containsExactly("ALLREDUCE_POOL");
            assertThat(j.alone().diagnostics().getFirst().stageId()).isEqualTo("gather");
        }
    }
}
