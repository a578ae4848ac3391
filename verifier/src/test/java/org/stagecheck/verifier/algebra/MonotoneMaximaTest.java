package org.stagecheck.verifier.algebra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Monotone functions over max and min partials (docs/verifier.md, "Monotone functions and
 * rescaled maxima"): each chip holds columns {@code [4c, 4c+4)} of {@code x} ({@code [2, 8]}) and
 * a replicated {@code b} ({@code [2, 1]}); the unsplit parent computes the row statistic at once.
 * Each split is judged by the evaluator and by the checker alone and given the parent.
 */
class MonotoneMaximaTest {
    private static final int[] ROW = {2, 1};

    /** The parent: {@code z = expr(max(x, axis 1), b)} (in0 the row max, in1 b). */
    private static SplitText parent(String fn, String expr) {
        SplitText p = new SplitText("parent", 1).input("x", 0, 2, 8).input("b", 0, 2, 1).reduce(0, "m", fn, 1, "x");
        return p.generic(0, "z", ROW, expr, "m", "b").output("z", 0, "z");
    }

    /**
     * The split: chip c applies {@code before} (in0 its columns) elementwise, reduces with {@code fn}
     * over its columns, applies {@code after} (in0 the local statistic, in1 b), and all-reduces with
     * {@code pool}; {@code onChip1} (nullable) replaces {@code after} on chip 1.
     */
    private static SplitText split(String before, String fn, String after, String onChip1, String pool) {
        SplitText s = new SplitText("split", 2);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, c, 2, 4).shard("x." + c, "x", 1, 4 * c, 4 * c + 4, 8);
            s.input("b." + c, c, 2, 1).shard("b." + c, "b", 0, 0, 2, 2);
            s.generic(c, "e." + c, new int[] {2, 4}, before, "x." + c);
            s.reduce(c, "m." + c, fn, 1, "e." + c);
            s.generic(c, "t." + c, ROW, c == 1 && onChip1 != null ? onChip1 : after, "m." + c, "b." + c);
        }
        s.allReduce("combine", pool, "z", List.of("t.0", "t.1"), List.of("z.0", "z.1"));
        for (int c = 0; c < 2; c++) {
            s.output("z." + c, c, "z." + c).shard("z." + c, "z", 0, 0, 2, 2);
        }
        return s;
    }

    private static void accepted(SplitText.Judged j) {
        assertThat(j.agrees()).as(j.toString()).isTrue();
        assertThat(j.alone().codes()).as(j.toString()).isEmpty();
        assertThat(j.withParent().codes()).as(j.toString()).isEmpty();
    }

    @Test
    void exp_of_each_column_then_a_max_all_reduce_is_exp_of_the_row_max() {
        // max_c max_j exp(x_j) = exp(max_j x_j): the parent takes exp after the max
        accepted(split("exp(in0)", "max", "in0", null, "max").judge(parent("max", "exp(in0)")));
    }

    @Test
    void exp_of_the_local_max_then_a_max_all_reduce_is_exp_of_the_row_max() {
        accepted(split("in0", "max", "exp(in0)", null, "max").judge(parent("max", "exp(in0)")));
    }

    @Test
    void the_negated_local_max_under_a_min_all_reduce_is_the_negated_row_max() {
        // min_c(-m_c) = -max_c(m_c)
        accepted(split("in0", "max", "neg(in0)", null, "min").judge(parent("max", "neg(in0)")));
    }

    @Test
    void a_replicated_value_added_to_the_local_max_is_added_to_the_row_max() {
        // max_c(m_c + b) = max_c(m_c) + b; also tanh and a positive scale
        accepted(split("in0", "max", "add(in0, in1)", null, "max").judge(parent("max", "add(in0, in1)")));
        accepted(split("in0", "max", "tanh(mul(sub(in0, in1), 0.5))", null, "max").judge(parent("max", "tanh(mul(sub(in0, in1), 0.5))")));
    }

    @Test
    void a_negative_scale_turns_a_local_min_into_a_max_partial() {
        // max_c(-2 * min_j x_j) = -2 * min_j x_j
        accepted(split("in0", "min", "mul(in0, -2.0)", null, "max").judge(parent("min", "mul(in0, -2.0)")));
    }

    @Test
    void exp_of_the_local_max_less_a_replicated_value_under_a_max_all_reduce_is_exp_of_the_row_max_less_it() {
        // exp(m_c - b) is factored as exp(M - b) times the rescale factor exp(m_c - M), and also a max-partial of
        // exp(M - b): exp is increasing, so max_c exp(m_c - b) = exp(M - b) to the bit
        accepted(split("in0", "max", "exp(sub(in0, in1))", null, "max").judge(parent("max", "exp(sub(in0, in1))")));
        accepted(split("in0", "max", "exp(mul(sub(in0, in1), 0.5))", null, "max").judge(parent("max", "exp(mul(sub(in0, in1), 0.5))")));
    }

    @Test
    void exp_of_a_replicated_value_less_the_local_max_under_a_min_all_reduce_is_exp_of_it_less_the_row_max() {
        // b - m_c is decreasing in m_c: a min-partial of b - M, and exp keeps it one
        accepted(split("in0", "max", "exp(sub(in1, in0))", null, "min").judge(parent("max", "exp(sub(in1, in0))")));
    }

    @Test
    void exp_of_a_replicated_value_less_the_local_max_under_a_max_all_reduce_is_rejected() {
        // max_c exp(b - m_c) is exp(b - min_c m_c), not exp(b - M)
        SplitText.Judged j = split("in0", "max", "exp(sub(in1, in0))", null, "max").judge(parent("max", "exp(sub(in1, in0))"));
        assertThat(j.agrees()).as(j.toString()).isFalse();
        assertThat(j.alone().holds()).as(j.toString()).isFalse();
        assertThat(j.withParent().holds()).as(j.toString()).isFalse();
    }

    @Test
    void exp_of_the_local_max_less_a_value_times_a_value_of_unknown_sign_under_a_max_all_reduce_is_rejected() {
        // the factored value meets b, which may be negative: the max no longer picks the chip with the largest m_c
        SplitText.Judged j = split("in0", "max", "mul(exp(sub(in0, in1)), in1)", null, "max").judge(parent("max", "mul(exp(sub(in0, in1)), in1)"));
        assertThat(j.agrees()).as(j.toString()).isFalse();
        assertThat(j.alone().codes()).as(j.toString()).contains("PARTIAL_NONLINEAR");
        assertThat(j.withParent().holds()).as(j.toString()).isFalse();
    }

    @Test
    void a_monotone_function_of_the_factored_exp_under_a_max_all_reduce_is_rejected_though_right() {
        // a known limit (docs/verifier.md, "What the checker does not prove"): only the value exp produced is also a max-partial
        SplitText.Judged j = split("in0", "max", "tanh(exp(sub(in0, in1)))", null, "max").judge(parent("max", "tanh(exp(sub(in0, in1)))"));
        assertThat(j.agrees()).as(j.toString()).isTrue();
        assertThat(j.alone().codes()).as(j.toString()).contains("PARTIAL_NONLINEAR");
    }

    @Test
    void the_negated_local_max_under_a_max_all_reduce_is_rejected() {
        SplitText.Judged j = split("in0", "max", "neg(in0)", null, "max").judge(parent("max", "neg(in0)"));
        assertThat(j.agrees()).as(j.toString()).isFalse();
        assertThat(j.alone().codes()).as(j.toString()).containsExactly("ALLREDUCE_POOL");
        assertThat(j.alone().diagnostics().getFirst().stageId()).isEqualTo("combine");
    }

    @Test
    void exp_of_the_local_max_summed_by_a_sum_all_reduce_is_rejected() {
        SplitText.Judged j = split("in0", "max", "exp(in0)", null, "sum").judge(parent("max", "exp(in0)"));
        assertThat(j.agrees()).as(j.toString()).isFalse();
        assertThat(j.alone().codes()).as(j.toString()).containsExactly("ALLREDUCE_POOL");
    }

    @Test
    void the_value_added_on_one_chip_only_is_rejected() {
        SplitText.Judged j = split("in0", "max", "add(in0, in1)", "in0", "max").judge(parent("max", "add(in0, in1)"));
        assertThat(j.agrees()).as(j.toString()).isFalse();
        assertThat(j.alone().holds()).as(j.toString()).isFalse();
        assertThat(j.withParent().holds()).as(j.toString()).isFalse();
    }

    @Test
    void a_local_max_times_a_value_of_unknown_sign_is_not_monotone() {
        // b may be negative: max_c(m_c * b) is not max(x) * b where b < 0
        SplitText.Judged j = split("in0", "max", "mul(in0, in1)", null, "max").judge(parent("max", "mul(in0, in1)"));
        assertThat(j.agrees()).as(j.toString()).isFalse();
        assertThat(j.alone().codes()).as(j.toString()).contains("PARTIAL_NONLINEAR");
    }

    @Test
    void a_local_max_in_a_function_that_is_not_monotone_is_rejected() {
        // min_c |m_c| is the local minimum nearest to zero, not |min(x)|
        SplitText.Judged j = split("in0", "min", "abs(in0)", null, "min").judge(parent("min", "abs(in0)"));
        assertThat(j.agrees()).as(j.toString()).isFalse();
        assertThat(j.alone().codes()).as(j.toString()).contains("PARTIAL_NONLINEAR");
    }
}
