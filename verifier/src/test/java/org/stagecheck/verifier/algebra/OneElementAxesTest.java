package org.stagecheck.verifier.algebra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Values one element wide along an axis (a row statistic {@code [rows, 1]}, a one-row activation
 * {@code [1, n]}) read by an elementwise op whose inputs are all one element wide there
 * (docs/verifier.md, "Regions"): such a value read at its own position is the value itself, not a
 * broadcast of it, so a copy, a scale after a sum or a bias added on one chip builds the term the
 * unsplit program (or the other chips) build. Each split is judged by the evaluator and by the
 * checker alone and given the parent.
 */
class OneElementAxesTest {
    private static final int[] ROWS = {2, 8};
    private static final int[] HALF = {2, 4};
    private static final int[] COL = {2, 1};

    private static void accepted(SplitText.Judged j) {
        assertThat(j.agrees()).as(j.toString()).isTrue();
        assertThat(j.alone().codes()).as(j.toString()).isEmpty();
        assertThat(j.withParent().codes()).as(j.toString()).isEmpty();
    }

    @Test
    void a_copy_of_the_completed_row_max_is_the_row_max() {
        SplitText p = new SplitText("row-max", 1).input("x", 0, ROWS);
        p.reduce(0, "y", "max", 1, "x").output("y", 0, "y");
        SplitText s = new SplitText("row-max-split", 2);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, c, HALF).shard("x." + c, "x", 1, 4 * c, 4 * c + 4, 8).reduce(c, "m." + c, "max", 1, "x." + c);
        }
        s.allReduce("combine", "max", "y", List.of("m.0", "m.1"), List.of("r.0", "r.1"));
        for (int c = 0; c < 2; c++) {
            s.generic(c, "y." + c, COL, "in0", "r." + c).output("y." + c, c, "y." + c).shard("y." + c, "y", 0, 0, 2, 2);
        }
        accepted(s.judge(p));
    }

    /**
     * RMSNorm over the columns of x: the parent takes the mean of squares after the sum, the split
     * scales each square by 1/8 before summing its columns, then both normalise x by rsqrt(mean + eps).
     */
    @Test
    void rms_norm_with_the_mean_taken_inside_the_split_sum_is_the_parents() {
        String norm = "rsqrt(add(in0, 0.000001))";
        SplitText p = new SplitText("rms-norm", 1).input("x", 0, ROWS);
        p.generic(0, "sq", ROWS, "mul(in0, in0)", "x").reduce(0, "ss", "sum", 1, "sq").generic(0, "ms", COL, "mul(in0, 0.125)", "ss")
                .generic(0, "r", COL, norm, "ms").generic(0, "y", ROWS, "mul(in0, in1)", "x", "r").output("y", 0, "y");
        SplitText s = new SplitText("rms-norm-split", 2);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, c, HALF).shard("x." + c, "x", 1, 4 * c, 4 * c + 4, 8);
            s.generic(c, "sq." + c, HALF, "mul(mul(in0, in0), 0.125)", "x." + c).reduce(c, "ms." + c, "sum", 1, "sq." + c);
        }
        s.allReduce("combine", "sum", "ms", List.of("ms.0", "ms.1"), List.of("m.0", "m.1"));
        for (int c = 0; c < 2; c++) {
            s.generic(c, "r." + c, COL, norm, "m." + c).generic(c, "y." + c, HALF, "mul(in0, in1)", "x." + c, "r." + c);
            s.output("y." + c, c, "y." + c).shard("y." + c, "y", 1, 4 * c, 4 * c + 4, 8);
        }
        accepted(s.judge(p));
    }

    /** {@code y = x w + b} for one row of x; the split contracts over 2 chips and adds b to the partials of {@code biasOn}. */
    private static SplitText.Judged oneRowWithBias(boolean... biasOn) {
        SplitText p = new SplitText("one-row", 1).input("x", 0, 1, 8).input("w", 0, 8, 4).input("b", 0, 1, 4);
        p.matmul(0, "xw", "x", "w", false, false).generic(0, "y", new int[] {1, 4}, "add(in0, in1)", "xw", "b").output("y", 0, "y");
        SplitText s = new SplitText("one-row-split", 2);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, c, 1, 4).shard("x." + c, "x", 1, 4 * c, 4 * c + 4, 8);
            s.input("w." + c, c, 4, 4).shard("w." + c, "w", 0, 4 * c, 4 * c + 4, 8);
            s.matmul(c, "p." + c, "x." + c, "w." + c, false, false);
            if (biasOn[c]) {
                s.input("b." + c, c, 1, 4).shard("b." + c, "b", 0, 0, 1, 1);
                s.generic(c, "q." + c, new int[] {1, 4}, "add(in0, in1)", "p." + c, "b." + c);
            }
        }
        s.allReduce("combine", "sum", "y", List.of(biasOn[0] ? "q.0" : "p.0", biasOn[1] ? "q.1" : "p.1"), List.of("y.0", "y.1"));
        for (int c = 0; c < 2; c++) {
            s.output("y." + c, c, "y." + c).shard("y." + c, "y", 0, 0, 1, 1);
        }
        return s.judge(p);
    }

    @Test
    void a_bias_added_to_one_chips_partial_of_a_one_row_product_is_added_once() {
        // the add reads the one-row partial in place: chip 0's summand is the same term as chip 1's
        accepted(oneRowWithBias(true, false));
    }

    @Test
    void a_bias_added_to_every_chips_partial_of_a_one_row_product_is_added_twice() {
        SplitText.Judged j = oneRowWithBias(true, true);
        assertThat(j.agrees()).as(j.toString()).isFalse();
        assertThat(j.alone().codes()).as(j.toString()).contains("PARTIAL_PLUS_FULL");
        assertThat(j.withParent().holds()).as(j.toString()).isFalse();
    }

    @Test
    void a_window_one_column_off_is_reported_with_where_each_store_starts() {
        // parent y = tanh(x[:, 0:4]), split y = tanh(x[:, 1:5]): both print tanh(x); the message says what differs
        SplitText p = new SplitText("window", 1).input("x", 0, ROWS);
        p.slice(0, "a", "x", new int[] {0, 0}, HALF).generic(0, "y", HALF, "tanh(in0)", "a").output("y", 0, "y");
        SplitText s = new SplitText("window-off", 1).input("x", 0, ROWS);
        s.slice(0, "a", "x", new int[] {0, 1}, HALF).generic(0, "y", HALF, "tanh(in0)", "a").output("y", 0, "y");
        SplitText.Judged j = s.judge(p);
        assertThat(j.agrees()).as(j.toString()).isFalse();
        assertThat(j.withParent().codes()).as(j.toString()).containsExactly("LOGICAL_OUTPUT_DIFFERS");
        assertThat(j.withParent().diagnostics().getFirst().message())
                .contains("holds tanh(x) where the unsplit program's holds tanh(x)")
                .contains("on axis 1 the split's store starts at its element 1 and the unsplit program's at 0");
    }
}
