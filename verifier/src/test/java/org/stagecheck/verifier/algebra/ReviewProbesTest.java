package org.stagecheck.verifier.algebra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.stagecheck.backend.RunResult;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.verifier.Parent;
import org.stagecheck.verifier.Verifier;
import org.stagecheck.verifier.VerifyReport;

/**
 * Adversarial probes of the checker's newer rules (docs/verifier.md: integer partials, signs for
 * zero padding, rem/div on ranges, positions disjoint for every value, negations cancelling,
 * selects recombining, transposes, vocabulary-sharded embeddings). Each probe is a split judged by
 * the reference evaluator against its unsplit parent; a split the evaluator shows wrong must be
 * rejected given the parent, and a right one should be accepted. The few probes that pin a
 * documented limit say so in their names (docs/verifier.md, "What the checker does not prove").
 */
@Tag("slow") // 35 evaluator-judged probes; each rule has its own tests in the quick part
class ReviewProbesTest {

    private static void rejectedAndWrong(SplitText.Judged j) {
        assertThat(j.agrees()).as("the evaluator shows the split wrong: " + j).isFalse();
        assertThat(j.withParent().holds()).as("the checker must reject a wrong split: " + j).isFalse();
    }

    /** A documented limit: canonical sums cancel {@code b - b} as real arithmetic does, whatever rounding did to what b was added to. */
    private static void acceptedThoughWrongByRounding(SplitText.Judged j) {
        assertThat(j.agrees()).as("the evaluator shows the split wrong: " + j).isFalse();
        assertThat(j.withParent().codes()).as("the documented limit: " + j).isEmpty();
    }

    private static void acceptedAndRight(SplitText.Judged j) {
        assertThat(j.agrees()).as(j.toString()).isTrue();
        assertThat(j.withParent().codes()).as(j.toString()).isEmpty();
    }

    // ---- Signs: zero padding under a max all-reduce of i32 values ----

    /** Parent: {@code y = f(x + j)} at column j of an i32 {@code [2, 8]} (the evaluator's i32 inputs are 0, so the values are the columns). */
    private static SplitText intParent(String f) {
        SplitText p = new SplitText("int-gather", 1).input("x", "i32", 0, 2, 8);
        p.generic(0, "e", "i32", new int[] {2, 8}, "add(in0, index(1))", "x");
        return p.generic(0, "y", "i32", new int[] {2, 8}, f, "e").output("y", 0, "y");
    }

    /** Chip c computes its columns of {@code f(x + j)}, lays them beside i32 zeros and a max all-reduce gathers them. */
    private static SplitText intGather(String f, String pool) {
        SplitText s = new SplitText("int-gather-split", 2);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, "i32", c, 2, 4).shard("x." + c, "x", 1, 4 * c, 4 * c + 4, 8);
            s.generic(c, "e." + c, "i32", new int[] {2, 4}, "add(in0, add(index(1), " + 4 * c + "))", "x." + c);
            s.generic(c, "a." + c, "i32", new int[] {2, 4}, f, "e." + c);
            s.generic(c, "pad." + c, "i32", new int[] {2, 4}, "0", "a." + c);
            if (c == 0) {
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

    /** A right split the checker rejects today (a limit, not a hole): an i32 fill is not recognised as padding. */
    private static void rightButRejectedAsViewMismatch(SplitText.Judged j) {
        assertThat(j.agrees()).as(j.toString()).isTrue();
        assertThat(j.withParent().codes()).as(j.toString()).containsExactly("ALLREDUCE_VIEW_MISMATCH");
    }

    @Test
    void i32_values_padded_with_i32_zeros_are_no_gather_today_under_a_sum_or_a_max() {
        // right splits (the evaluator agrees), rejected: only 0.0, -inf and inf are recognised fills
        rightButRejectedAsViewMismatch(intGather("abs(in0)", "sum").judge(intParent("abs(in0)")));
        rightButRejectedAsViewMismatch(intGather("abs(in0)", "max").judge(intParent("abs(in0)")));
    }

    @Test
    void an_i32_sum_of_never_negative_terms_that_wraps_is_negative_under_zero_padding() {
        // |e| + (2^31 - 1) wraps below zero for every column but 0: max with the padding's 0 gives 0
        rejectedAndWrong(intGather("add(abs(in0), 2147483647)", "max").judge(intParent("add(abs(in0), 2147483647)")));
    }

    @Test
    void an_i32_product_of_never_negative_terms_that_wraps_is_negative_under_zero_padding() {
        // |e| * 2^30 is -2^31 at column 2, -2^30 at 3, ...
        rejectedAndWrong(intGather("mul(abs(in0), 1073741824)", "max").judge(intParent("mul(abs(in0), 1073741824)")));
    }

    @Test
    void the_negation_of_a_wrapping_i32_sum_is_positive_under_zero_padding_and_a_min() {
        rejectedAndWrong(intGather("neg(add(abs(in0), 2147483647))", "min").judge(intParent("neg(add(abs(in0), 2147483647))")));
    }

    /** Parent: {@code y = f32(f(x + j))}; chip c casts its columns to f32 and lays them beside f32 zeros (or {@code pad}) under {@code pool}. */
    private static SplitText.Judged castGather(String f, String pad, String pool) {
        SplitText p = new SplitText("cast-gather", 1).input("x", "i32", 0, 2, 8);
        p.generic(0, "e", "i32", new int[] {2, 8}, "add(in0, index(1))", "x");
        p.generic(0, "y", new int[] {2, 8}, "f32(" + f + ")", "e").output("y", 0, "y");
        SplitText s = new SplitText("cast-gather-split", 2);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, "i32", c, 2, 4).shard("x." + c, "x", 1, 4 * c, 4 * c + 4, 8);
            s.generic(c, "e." + c, "i32", new int[] {2, 4}, "add(in0, add(index(1), " + 4 * c + "))", "x." + c);
            s.generic(c, "a." + c, new int[] {2, 4}, "f32(" + f + ")", "e." + c);
            s.generic(c, "pad." + c, new int[] {2, 4}, pad, "a." + c);
            if (c == 0) {
                s.concat(c, "g." + c, 1, "a." + c, "pad." + c);
            } else {
                s.concat(c, "g." + c, 1, "pad." + c, "a." + c);
            }
        }
        s.allReduce("gather", pool, "y", List.of("g.0", "g.1"), List.of("y.0", "y.1"));
        for (int c = 0; c < 2; c++) {
            s.output("y." + c, c, "y." + c).shard("y." + c, "y", 0, 0, 2, 2);
        }
        return s.judge(p);
    }

    @Test
    void never_negative_i32_values_cast_to_f32_are_gathered_under_minus_infinity_and_not_under_zeros() {
        // right, but rejected: a cast passes no sign (below it i32 arithmetic may wrap, as abs(-2^31) does)
        SplitText.Judged zeros = castGather("abs(in0)", "0.0", "max");
        assertThat(zeros.agrees()).as(zeros.toString()).isTrue();
        assertThat(zeros.withParent().codes()).as(zeros.toString()).containsExactly("ALLREDUCE_POOL");
        acceptedAndRight(castGather("add(abs(in0), 2147483647)", "-inf", "max"));
    }

    @Test
    void a_wrapping_i32_sum_cast_to_f32_is_negative_under_zero_padding_and_a_max() {
        // f32(|e| + (2^31 - 1)) is about -2^31 for every column but 0: max with the padding's 0 gives 0
        rejectedAndWrong(castGather("add(abs(in0), 2147483647)", "0.0", "max"));
    }

    @Test
    void a_wrapping_i32_product_cast_to_f32_is_negative_under_zero_padding_and_a_max() {
        rejectedAndWrong(castGather("mul(abs(in0), 1073741824)", "0.0", "max"));
    }

    @Test
    void the_absolute_value_of_the_smallest_i32_cast_to_f32_is_negative_under_zero_padding_and_a_max() {
        // |e - 2^31 + 1 - 1| at column 0 is |-2^31| = -2^31 in i32
        rejectedAndWrong(castGather("abs(sub(sub(in0, 2147483647), 1))", "0.0", "max"));
    }

    // ---- Integer partials: i32 remainder and absolute value of a sum partial ----

    /** Chip c sums its columns of {@code x + j + 1} (i32), applies {@code after}, and a sum all-reduce combines; the parent applies it to the row sum. */
    private static SplitText.Judged intSum(String after) {
        SplitText p = new SplitText("int-sum", 1).input("x", "i32", 0, 2, 8);
        p.generic(0, "e", "i32", new int[] {2, 8}, "add(in0, add(index(1), 1))", "x").reduce(0, "m", "sum", 1, "e");
        p.generic(0, "z", "i32", new int[] {2, 1}, after, "m").output("z", 0, "z");
        SplitText s = new SplitText("int-sum-split", 2);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, "i32", c, 2, 4).shard("x." + c, "x", 1, 4 * c, 4 * c + 4, 8);
            s.generic(c, "e." + c, "i32", new int[] {2, 4}, "add(in0, add(index(1), " + (4 * c + 1) + "))", "x." + c);
            s.reduce(c, "m." + c, "sum", 1, "e." + c);
            s.generic(c, "t." + c, "i32", new int[] {2, 1}, after, "m." + c);
        }
        s.allReduce("combine", "sum", "z", List.of("t.0", "t.1"), List.of("z.0", "z.1"));
        for (int c = 0; c < 2; c++) {
            s.output("z." + c, c, "z." + c).shard("z." + c, "z", 0, 0, 2, 2);
        }
        return s.judge(p);
    }

    @Test
    void an_i32_remainder_of_a_sum_partial_is_rejected() {
        // (10 + 26) mod 4 = 0, but 10 mod 4 + 26 mod 4 = 4
        rejectedAndWrong(intSum("rem(in0, 4)"));
    }

    @Test
    void an_i32_sum_partial_minus_a_constant_is_rejected() {
        // every chip takes 3 away: the sum takes 6 away where the parent takes 3
        rejectedAndWrong(intSum("sub(in0, 3)"));
    }

    @Test
    void an_i32_sum_partial_compared_and_selected_is_rejected() {
        rejectedAndWrong(intSum("select(gt(in0, 20), in0, 0)"));
    }

    /** As {@link #intSum}, the statistic reshaped to one element and {@code after} applied by a Scalar stage. */
    private static SplitText.Judged scalarOfPartial(String fn, long base, String after) {
        SplitText p = new SplitText("int-scalar", 1).input("x", "i32", 0, 1, 8);
        p.generic(0, "e", "i32", new int[] {1, 8}, "add(in0, add(index(1), " + base + "))", "x").reduce(0, "m", fn, 1, "e");
        p.reshape(0, "mr", new int[] {1}, "m").scalar(0, "z", after, "mr").reshape(0, "zz", new int[] {1, 1}, "z").output("z", 0, "zz");
        SplitText s = new SplitText("int-scalar-split", 2);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, "i32", c, 1, 4).shard("x." + c, "x", 1, 4 * c, 4 * c + 4, 8);
            s.generic(c, "e." + c, "i32", new int[] {1, 4}, "add(in0, add(index(1), " + (base + 4 * c) + "))", "x." + c);
            s.reduce(c, "m." + c, fn, 1, "e." + c).reshape(c, "mr." + c, new int[] {1}, "m." + c).scalar(c, "t." + c, after, "mr." + c);
        }
        s.allReduce("combine", fn, "z", List.of("t.0", "t.1"), List.of("z.0", "z.1"));
        for (int c = 0; c < 2; c++) {
            s.reshape(c, "zz." + c, new int[] {1, 1}, "z." + c).output("z." + c, c, "zz." + c).shard("z." + c, "z", 0, 0, 1, 1);
        }
        return s.judge(p);
    }

    @Test
    void a_scalar_stage_dividing_an_i32_sum_partial_is_rejected() {
        // the row 1..8: (10 + 26) / 4 = 9, but 10/4 + 26/4 = 8
        rejectedAndWrong(scalarOfPartial("sum", 1, "div(in0, 4)"));
        rejectedAndWrong(scalarOfPartial("sum", 1, "rem(in0, 4)"));
    }

    @Test
    void a_scalar_stage_adding_one_to_an_i32_max_partial_that_wraps_is_rejected() {
        // the row 2^31 - 8 .. 2^31 - 1: chip 1's max + 1 wraps below chip 0's
        rejectedAndWrong(scalarOfPartial("max", 2147483640, "add(in0, 1)"));
    }

    // ---- Canonical sums: a summand and its negation cancel; selects recombine ----

    /** Two replicas each compute {@code expr(x, g)} over the whole {@code [2, 8]} inputs; the parent computes {@code parentExpr}. */
    private static SplitText.Judged replicated(String expr, String parentExpr) {
        SplitText p = new SplitText("elementwise", 1).input("x", 0, 2, 8).input("g", 0, 2, 8);
        p.generic(0, "y", new int[] {2, 8}, parentExpr, "x", "g").output("y", 0, "y");
        SplitText s = new SplitText("elementwise-split", 2);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, c, 2, 8).shard("x." + c, "x", 0, 0, 2, 2);
            s.input("g." + c, c, 2, 8).shard("g." + c, "g", 0, 0, 2, 2);
            s.generic(c, "y." + c, new int[] {2, 8}, expr, "x." + c, "g." + c).output("y." + c, c, "y." + c).shard("y." + c, "y", 0, 0, 2, 2);
        }
        return s.judge(p);
    }

    @Test
    void a_select_of_a_branch_counted_twice_is_not_the_recombined_select() {
        String k = "gt(in1, 0.0)";
        String twice = "add(add(select(" + k + ", tanh(in0), 0.0), select(" + k + ", tanh(in0), 0.0)), select(" + k + ", 0.0, sigmoid(in0)))";
        rejectedAndWrong(replicated(twice, "select(" + k + ", tanh(in0), sigmoid(in0))"));
        String right = "add(select(" + k + ", tanh(in0), 0.0), select(" + k + ", 0.0, sigmoid(in0)))";
        acceptedAndRight(replicated(right, "select(" + k + ", tanh(in0), sigmoid(in0))"));
    }

    @Test
    void a_select_minus_its_complement_is_not_the_recombined_select() {
        String k = "gt(in1, 0.0)";
        String minus = "sub(select(" + k + ", tanh(in0), 0.0), select(" + k + ", 0.0, sigmoid(in0)))";
        rejectedAndWrong(replicated(minus, "select(" + k + ", tanh(in0), sigmoid(in0))"));
    }

    @Test
    void selects_under_conditions_that_differ_do_not_recombine() {
        String a = "select(gt(in1, 0.0), tanh(in0), 0.0)";
        String b = "select(gt(in1, 0.5), 0.0, sigmoid(in0))";
        rejectedAndWrong(replicated("add(" + a + ", " + b + ")", "select(gt(in1, 0.0), tanh(in0), sigmoid(in0))"));
    }

    @Test
    void known_limit_a_huge_summand_taken_away_again_swallows_the_value_it_was_added_to() {
        // f32: tanh(x) + 1e30 e^g rounds to 1e30 e^g, so the difference is 0, not tanh(x) (all finite)
        String big = "mul(exp(in1), 1.0e30)";
        acceptedThoughWrongByRounding(replicated("sub(add(tanh(in0), " + big + "), " + big + ")", "tanh(in0)"));
    }

    @Test
    void known_limit_an_infinite_summand_taken_away_again_is_nan() {
        // exp(1000 x) is +inf wherever x > 0.09: inf - inf is NaN where the parent is tanh(x)
        String inf = "exp(mul(in0, 1000.0))";
        acceptedThoughWrongByRounding(replicated("sub(add(tanh(in0), " + inf + "), " + inf + ")", "tanh(in0)"));
    }

    @Test
    void known_limit_a_float_constant_added_and_taken_away_rounds_the_value_away() {
        // f32: tanh(x) + 2^24 keeps no fraction, so taking 2^24 away again leaves 0 or +-1, not tanh(x)
        acceptedThoughWrongByRounding(replicated("sub(add(tanh(in0), 16777216.0), 16777216.0)", "tanh(in0)"));
    }

    // ---- Monotone functions: a select that is not monotone ----

    @Test
    void a_select_of_the_local_max_that_is_not_monotone_is_rejected() {
        // m -> (m > 0 ? m : 1) is not monotone on (0, 1): max_c of it is not it of the max
        SplitText p = new SplitText("row-max", 1).input("x", 0, 2, 8).reduce(0, "m", "max", 1, "x");
        p.generic(0, "z", new int[] {2, 1}, "select(gt(in0, 0.5), in0, 2.0)", "m").output("z", 0, "z");
        SplitText s = new SplitText("row-max-split", 2);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, c, 2, 4).shard("x." + c, "x", 1, 4 * c, 4 * c + 4, 8);
            s.reduce(c, "m." + c, "max", 1, "x." + c);
            s.generic(c, "t." + c, new int[] {2, 1}, "select(gt(in0, 0.5), in0, 2.0)", "m." + c);
        }
        s.allReduce("combine", "max", "z", List.of("t.0", "t.1"), List.of("z.0", "z.1"));
        for (int c = 0; c < 2; c++) {
            s.output("z." + c, c, "z." + c).shard("z." + c, "z", 0, 0, 2, 2);
        }
        rejectedAndWrong(s.judge(p));
    }

    // ---- Parameter ranges: a split narrower than its parent (accepted by design, docs/verifier.md "Parameters against the parent's") ----

    @Test
    void a_split_specialised_to_a_narrower_parameter_range_is_accepted_though_it_refuses_values_the_parent_runs() {
        // the parent writes row pos for pos in [0, 7]; the split declares [0, 3], where rem(pos, 4) is pos
        SplitText parent = new SplitText("ring", 1).param("pos", 0, 7).input("x", 0, 1, 8).tensor("kv", "state", 0, 8, 8)
                .generic(0, "y", new int[] {1, 8}, "tanh(in0)", "x").store("st_kv", 0, "y", "kv", "pos", "0");
        SplitText s = new SplitText("ring-split", 2).param("pos", 0, 3);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, c, 1, 8).shard("x." + c, "x", 0, 0, 1, 1);
            s.tensor("kv." + c, "state", c, 8, 8).shard("kv." + c, "kv", 0, 0, 8, 8);
            s.generic(c, "y." + c, new int[] {1, 8}, "tanh(in0)", "x." + c);
            s.scalar(c, "slot." + c, "rem(param(pos), 4)");
            s.store("st_kv." + c, c, "y." + c, "kv." + c, "@slot." + c, "0");
        }
        // the campaign evaluator runs the split's range only (and agrees there); at pos = 5 the parent
        // runs and the split refuses the value
        Tensor x = Tensor.fromFloats(DType.F32, Shape.of(1, 8), new float[] {1, 2, 3, 4, 5, 6, 7, 8});
        Tensor kv = Tensor.zeros(DType.F32, Shape.of(8, 8));
        RunResult whole = INTERPRETER.run(parent.program(), Map.of("x", x, "kv", kv), Map.of("pos", 5L));
        assertThat(whole.ok()).as(whole.faults().toString()).isTrue();
        RunResult split = INTERPRETER.run(s.program(), Map.of("x.0", x, "x.1", x, "kv.0", kv, "kv.1", kv), Map.of("pos", 5L));
        assertThat(split.ok()).isFalse();
        assertThat(split.faults().getFirst().code()).isEqualTo("PARAM_OUT_OF_RANGE");
        SplitText.Judged j = s.judge(parent);
        assertThat(j.agrees()).as(j.toString()).isTrue();
        assertThat(j.withParent().codes()).as(j.toString()).isEmpty();
    }

    /** {@code y = tanh(x w1) w2 + b2} split over the contraction on 2 chips; chip c applies {@code partial[c]} (in0 its partial, in1 b2) before the sum all-reduce. */
    private static SplitText.Judged mlp(String[] partial) {
        SplitText p = new SplitText("mlp", 1).input("x", 0, 2, 8).input("w1", 0, 8, 8).input("w2", 0, 8, 8).input("b2", 0, 1, 8)
                .matmul(0, "h", "x", "w1", false, false).generic(0, "a", new int[] {2, 8}, "tanh(in0)", "h")
                .matmul(0, "p", "a", "w2", false, false).generic(0, "y", new int[] {2, 8}, "add(in0, in1)", "p", "b2").output("y", 0, "y");
        SplitText s = new SplitText("mlp-split", 2);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, c, 2, 8).shard("x." + c, "x", 0, 0, 2, 2);
            s.input("w1." + c, c, 8, 4).shard("w1." + c, "w1", 1, 4 * c, 4 * c + 4, 8);
            s.input("w2." + c, c, 4, 8).shard("w2." + c, "w2", 0, 4 * c, 4 * c + 4, 8);
            s.input("b2." + c, c, 1, 8).shard("b2." + c, "b2", 0, 0, 1, 1);
            s.matmul(c, "h." + c, "x." + c, "w1." + c, false, false).generic(c, "a." + c, new int[] {2, 4}, "tanh(in0)", "h." + c);
            s.matmul(c, "p." + c, "a." + c, "w2." + c, false, false).generic(c, "q." + c, new int[] {2, 8}, partial[c], "p." + c, "b2." + c);
        }
        s.allReduce("ar", "sum", "w2", List.of("q.0", "q.1"), List.of("y.0", "y.1"));
        for (int c = 0; c < 2; c++) {
            s.output("y." + c, c, "y." + c).shard("y." + c, "y", 0, 0, 2, 2);
        }
        return s.judge(p);
    }

    @Test
    void a_bias_added_on_one_chip_and_taken_away_twice_on_the_other_is_minus_the_bias() {
        rejectedAndWrong(mlp(new String[] {"add(in0, in1)", "sub(sub(in0, in1), in1)"}));
        // twice on one chip, once taken away on the other: + b2, right
        acceptedAndRight(mlp(new String[] {"add(add(in0, in1), in1)", "sub(in0, in1)"}));
    }

    @Test
    void a_partial_cancelled_to_nothing_leaves_a_whole_value_that_the_sum_counts_twice() {
        // (p_c + b2) - p_c is b2 on each chip: the all-reduce sums 2 b2, the parent p + b2
        rejectedAndWrong(mlp(new String[] {"sub(add(in0, in1), in0)", "sub(add(in0, in1), in0)"}));
    }

    @Test
    void a_bias_added_on_one_chip_and_taken_away_on_the_other_is_no_bias() {
        rejectedAndWrong(mlp(new String[] {"add(in0, in1)", "sub(in0, in1)"}));
    }

    // ---- Transposes: every transpose, reduce, transpose of a rank-3 cube, judged by the evaluator ----

    private static final int[][] PERMS3 = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};

    private static int[] permuted(int[] shape, int[] perm) {
        int[] out = new int[perm.length];
        for (int i = 0; i < perm.length; i++) {
            out[i] = shape[perm[i]];
        }
        return out;
    }

    @Test
    void no_transpose_reduce_transpose_of_a_rank_3_tensor_is_accepted_where_the_evaluator_differs() {
        int[] cube = {2, 2, 2};
        List<String> holes = new ArrayList<>();
        int rightRejected = 0;
        int judged = 0;
        for (String fn : new String[] {"sum", "max"}) {
            for (int b = 0; b < 3; b++) {
                int[] want = cube.clone();
                want[b] = 1;
                SplitText parent = new SplitText("cube-" + fn, 1).input("x", 0, cube).reduce(0, "r", fn, b, "x").reshape(0, "y", new int[] {1, 4}, "r")
                        .output("y", 0, "y");
                for (int[] p1 : PERMS3) {
                    for (int a = 0; a < 3; a++) {
                        int[] mid = permuted(cube, p1);
                        mid[a] = 1;
                        for (int[] p2 : PERMS3) {
                            if (!Arrays.equals(permuted(mid, p2), want)) {
                                continue;
                            }
                            SplitText s = new SplitText("cube-split", 2);
                            for (int c = 0; c < 2; c++) {
                                s.input("x." + c, c, cube).shard("x." + c, "x", 0, 0, 2, 2);
                                s.permute(c, "t." + c, "x." + c, p1).reduce(c, "r." + c, fn, a, "t." + c).permute(c, "u." + c, "r." + c, p2);
                                s.reshape(c, "flat." + c, new int[] {1, 4}, "u." + c).output("y." + c, c, "flat." + c).shard("y." + c, "y", 0, 0, 1, 1);
                            }
                            SplitText.Judged j = s.judge(parent);
                            judged++;
                            String what = fn + " parent axis " + b + ", split " + Arrays.toString(p1) + " r" + a + " " + Arrays.toString(p2);
                            if (j.withParent().holds() && !j.agrees()) {
                                holes.add(what + ": " + j);
                            }
                            if (!j.withParent().holds() && j.agrees()) {
                                rightRejected++;
                            }
                        }
                    }
                }
            }
        }
        System.out.println("transpose probes: " + judged + " judged, " + rightRejected + " right ones rejected");
        assertThat(holes).isEmpty();
    }

    @Test
    void no_transpose_reduce_transpose_of_row_shards_is_accepted_where_the_evaluator_differs() {
        // x [4, 6], chip c holds rows [2c, 2c + 2); steps: optional transpose, a reduction, optional transpose, optional sum all-reduce
        List<String> holes = new ArrayList<>();
        int judged = 0;
        for (String fn : new String[] {"sum", "max"}) {
        for (int b = 0; b < 2; b++) {
            int[] want = {4, 6};
            want[b] = 1;
            SplitText parent = new SplitText("rows", 1).input("x", 0, 4, 6).reduce(0, "y", fn, b, "x").output("y", 0, "y");
            for (boolean pre : new boolean[] {false, true}) {
                for (int a = 0; a < 2; a++) {
                    for (boolean post : new boolean[] {false, true}) {
                        for (boolean reduced : new boolean[] {false, true}) {
                            int[] shape = pre ? new int[] {6, 2} : new int[] {2, 6};
                            shape[a] = 1;
                            if (post) {
                                shape = new int[] {shape[1], shape[0]};
                            }
                            int[] logical = reduced ? shape : new int[] {2 * shape[0], shape[1]};
                            if (!Arrays.equals(logical, want)) {
                                continue;
                            }
                            SplitText s = new SplitText("rows-split", 2);
                            List<String> ins = new ArrayList<>();
                            List<String> outs = new ArrayList<>();
                            for (int c = 0; c < 2; c++) {
                                s.input("x." + c, c, 2, 6).shard("x." + c, "x", 0, 2 * c, 2 * c + 2, 4);
                                String at = "x." + c;
                                if (pre) {
                                    s.transpose(c, "t." + c, at);
                                    at = "t." + c;
                                }
                                s.reduce(c, "r." + c, fn, a, at);
                                at = "r." + c;
                                if (post) {
                                    s.transpose(c, "u." + c, at);
                                    at = "u." + c;
                                }
                                ins.add(at);
                                outs.add("y." + c);
                            }
                            if (reduced) {
                                s.allReduce("ar", fn, "y", ins, outs);
                            }
                            for (int c = 0; c < 2; c++) {
                                String from = reduced ? "y." + c : ins.get(c);
                                s.output("y." + c, c, from);
                                if (reduced) {
                                    s.shard("y." + c, "y", 0, 0, shape[0], shape[0]);
                                } else {
                                    s.shard("y." + c, "y", 0, shape[0] * c, shape[0] * c + shape[0], 2 * shape[0]);
                                }
                            }
                            SplitText.Judged j = s.judge(parent);
                            judged++;
                            if (j.withParent().holds() && !j.agrees()) {
                                holes.add(fn + " parent axis " + b + " pre " + pre + " r" + a + " post " + post + " all-reduced " + reduced + ": " + j);
                            }
                        }
                    }
                }
            }
        }
        }
        System.out.println("row-shard transpose probes: " + judged + " judged");
        assertThat(holes).isEmpty();
    }

    // ---- Heads: a certificate head layout that lies, judged by the evaluator ----

    private static final int QUERY_HEADS = 4;
    private static final int KV_HEADS = 2;
    private static final int HEAD_W = 2;
    private static final int ROWS = 2;
    private static final int POSITIONS = 3;
    private static final int MODEL = 4;
    private static final int OUT = 3;

    private static void head(SplitText s, int chip, String tag, String q, String k, String v) {
        s.matmul(chip, "s" + tag, q, k, false, true).reduce(chip, "m" + tag, "max", 1, "s" + tag);
        s.generic(chip, "p" + tag, new int[] {ROWS, POSITIONS}, "exp(sub(in0, in1))", "s" + tag, "m" + tag).reduce(chip, "l" + tag, "sum", 1, "p" + tag);
        s.generic(chip, "a" + tag, new int[] {ROWS, POSITIONS}, "div(in0, in1)", "p" + tag, "l" + tag).matmul(chip, "o" + tag, "a" + tag, v, false, false);
    }

    /** The unsplit attention whose query head h uses key/value head {@code kvOf[h]}. */
    private static SplitText gqaParent(int[] kvOf) {
        SplitText u = new SplitText("gqa", 1).input("x", 0, ROWS, MODEL).input("wq", 0, MODEL, QUERY_HEADS * HEAD_W).input("kv", 0, POSITIONS, MODEL)
                .input("wk", 0, MODEL, KV_HEADS * HEAD_W).input("wv", 0, MODEL, KV_HEADS * HEAD_W).input("wo", 0, QUERY_HEADS * HEAD_W, OUT);
        u.matmul(0, "q", "x", "wq", false, false).matmul(0, "k", "kv", "wk", false, false).matmul(0, "v", "kv", "wv", false, false);
        for (int g = 0; g < KV_HEADS; g++) {
            u.slice(0, "k" + g, "k", new int[] {0, g * HEAD_W}, POSITIONS, HEAD_W).slice(0, "v" + g, "v", new int[] {0, g * HEAD_W}, POSITIONS, HEAD_W);
        }
        String[] outs = new String[QUERY_HEADS];
        for (int h = 0; h < QUERY_HEADS; h++) {
            u.slice(0, "q" + h, "q", new int[] {0, h * HEAD_W}, ROWS, HEAD_W);
            head(u, 0, "" + h, "q" + h, "k" + kvOf[h], "v" + kvOf[h]);
            outs[h] = "o" + h;
        }
        u.concat(0, "attn", 1, outs).matmul(0, "y", "attn", "wo", false, false);
        return u.output("y", 0, "y");
    }

    /** Chip c holds key/value head c and attends with it for query heads {@code heads[c]}, each projected alone; the certificate declares the layout. */
    private static SplitText gqaSplit(int[][] heads, String layout, int queryHeads, int kvHeads) {
        SplitText s = new SplitText("gqa-by-kv-head", KV_HEADS).heads(layout, queryHeads, kvHeads);
        List<String> sums = new ArrayList<>();
        List<String> ys = new ArrayList<>();
        for (int c = 0; c < KV_HEADS; c++) {
            s.input("x." + c, c, ROWS, MODEL).shard("x." + c, "x", 0, 0, ROWS, ROWS);
            s.input("kv." + c, c, POSITIONS, MODEL).shard("kv." + c, "kv", 0, 0, POSITIONS, POSITIONS);
            s.input("wk." + c, c, MODEL, HEAD_W).shard("wk." + c, "wk", 1, c * HEAD_W, c * HEAD_W + HEAD_W, KV_HEADS * HEAD_W);
            s.input("wv." + c, c, MODEL, HEAD_W).shard("wv." + c, "wv", 1, c * HEAD_W, c * HEAD_W + HEAD_W, KV_HEADS * HEAD_W);
            s.matmul(c, "k." + c, "kv." + c, "wk." + c, false, false).matmul(c, "v." + c, "kv." + c, "wv." + c, false, false);
            List<String> projected = new ArrayList<>();
            for (int h : heads[c]) {
                String tag = c + "." + h;
                s.input("wq." + tag, c, MODEL, HEAD_W).shard("wq." + tag, "wq", 1, h * HEAD_W, h * HEAD_W + HEAD_W, QUERY_HEADS * HEAD_W);
                s.matmul(c, "q" + tag, "x." + c, "wq." + tag, false, false);
                head(s, c, tag, "q" + tag, "k." + c, "v." + c);
                s.input("wo." + tag, c, HEAD_W, OUT).shard("wo." + tag, "wo", 0, h * HEAD_W, h * HEAD_W + HEAD_W, QUERY_HEADS * HEAD_W);
                s.matmul(c, "y" + tag, "o" + tag, "wo." + tag, false, false);
                projected.add("y" + tag);
            }
            String sum = projected.getFirst();
            if (projected.size() > 1) {
                sum = "ysum." + c;
                s.generic(c, sum, new int[] {ROWS, OUT}, "add(in0, in1)", projected.toArray(String[]::new));
            }
            sums.add(sum);
            ys.add("y." + c);
        }
        s.allReduce("combine_heads", "sum", "y", sums, ys);
        for (int c = 0; c < KV_HEADS; c++) {
            s.output("y." + c, c, "y." + c).shard("y." + c, "y", 0, 0, ROWS, ROWS);
        }
        return s;
    }

    @Test
    void no_head_layout_makes_the_checker_accept_a_pairing_the_evaluator_shows_wrong() {
        int[][] parents = {{0, 1, 0, 1}, {0, 0, 1, 1}, {0, 1, 1, 0}, {1, 0, 1, 0}};
        int[][][] splits = {{{0, 2}, {1, 3}}, {{0, 1}, {2, 3}}, {{0, 3}, {1, 2}}, {{1, 3}, {0, 2}}};
        int[][] counts = {{4, 2}, {4, 1}, {4, 4}, {8, 2}, {2, 2}, {2, 1}, {8, 4}, {8, 8}};
        List<String> holes = new ArrayList<>();
        int judged = 0;
        int accepted = 0;
        for (int[] kvOf : parents) {
            SplitText parent = gqaParent(kvOf);
            for (int[][] heads : splits) {
                for (String layout : new String[] {"interleaved", "contiguous"}) {
                    for (int[] n : counts) {
                        SplitText.Judged j = gqaSplit(heads, layout, n[0], n[1]).judge(parent);
                        judged++;
                        if (j.withParent().holds()) {
                            accepted++;
                            if (!j.agrees()) {
                                holes.add("parent " + Arrays.toString(kvOf) + ", chips " + Arrays.deepToString(heads) + ", " + layout + " " + n[0] + "/" + n[1] + ": " + j);
                            }
                        }
                    }
                }
            }
        }
        System.out.println("head-layout probes: " + judged + " judged, " + accepted + " accepted");
        assertThat(holes).isEmpty();
    }

    // ---- Positions: an offset whose exact value leaves 32 bits ----

    @Test
    void a_store_at_an_offset_that_wraps_to_pos_is_not_disjoint_from_the_store_at_pos() {
        // pos + 2^32 pos is pos in i32: the second store overwrites the first row, which the checker
        // may take for a row 2^32 away
        SplitText parent = new SplitText("cache", 1).param("pos", 1, 3).input("x", 0, 1, 8).tensor("kv", "state", 0, 4, 8)
                .generic(0, "y", new int[] {1, 8}, "tanh(in0)", "x").store("st_kv", 0, "y", "kv", "pos", "0");
        SplitText s = new SplitText("cache-split", 2).param("pos", 1, 3);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, c, 1, 8).shard("x." + c, "x", 0, 0, 1, 1);
            s.tensor("kv." + c, "state", c, 4, 8).shard("kv." + c, "kv", 0, 0, 4, 4);
            s.generic(c, "y." + c, new int[] {1, 8}, "tanh(in0)", "x." + c);
            s.generic(c, "z." + c, new int[] {1, 8}, "sigmoid(in0)", "x." + c);
            s.scalar(c, "at." + c, "param(pos)");
            s.scalar(c, "far." + c, "add(param(pos), mul(mul(param(pos), 65536), 65536))");
            s.store("st_kv." + c, c, "y." + c, "kv." + c, "@at." + c, "0");
            s.store("st_far." + c, c, "z." + c, "kv." + c, "@far." + c, "0");
        }
        rejectedAndWrong(s.judge(parent));
    }

    @Test
    void a_remainder_of_a_dividend_that_wraps_is_not_simplified() {
        // (2^32 + 1) pos + 1 is pos + 1 in i32; rem(., 4) crosses 4 at pos = 3, the row differs from pos
        SplitText parent = new SplitText("ring", 1).param("pos", 0, 3).input("x", 0, 1, 8).tensor("kv", "state", 0, 4, 8)
                .generic(0, "y", new int[] {1, 8}, "tanh(in0)", "x").store("st_kv", 0, "y", "kv", "pos", "0");
        SplitText s = new SplitText("ring-split", 2).param("pos", 0, 3);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, c, 1, 8).shard("x." + c, "x", 0, 0, 1, 1);
            s.tensor("kv." + c, "state", c, 4, 8).shard("kv." + c, "kv", 0, 0, 4, 4);
            s.generic(c, "y." + c, new int[] {1, 8}, "tanh(in0)", "x." + c);
            s.scalar(c, "slot." + c, "sub(rem(add(add(param(pos), mul(mul(param(pos), 65536), 65536)), 1), 4), 1)");
            s.store("st_kv." + c, c, "y." + c, "kv." + c, "@slot." + c, "0");
        }
        rejectedAndWrong(s.judge(parent));
    }

    // ---- rem/div and disjoint positions, judged by the evaluator over many forms ----

    /** Parent: row {@code parentSlot} then row {@code parentSlot2} of an 8-row cache; the split writes at {@code slots} in order (each a Scalar expression). */
    private static SplitText.Judged cache(long lo, long hi, String[] parentSlots, String[] parentValues, String[] slots, String[] values) {
        SplitText parent = new SplitText("cache", 1).param("pos", lo, hi).input("x", 0, 1, 8).tensor("kv", "state", 0, 8, 8);
        for (int i = 0; i < parentSlots.length; i++) {
            parent.generic(0, "y" + i, new int[] {1, 8}, parentValues[i], "x").scalar(0, "at" + i, parentSlots[i]);
            parent.store("st" + i, 0, "y" + i, "kv", "@at" + i, "0");
        }
        SplitText s = new SplitText("cache-split", 2).param("pos", lo, hi);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, c, 1, 8).shard("x." + c, "x", 0, 0, 1, 1);
            s.tensor("kv." + c, "state", c, 8, 8).shard("kv." + c, "kv", 0, 0, 8, 8);
            for (int i = 0; i < slots.length; i++) {
                s.generic(c, "y" + i + "." + c, new int[] {1, 8}, values[i], "x." + c).scalar(c, "at" + i + "." + c, slots[i]);
                s.store("st" + i + "." + c, c, "y" + i + "." + c, "kv." + c, "@at" + i + "." + c, "0");
            }
        }
        return s.judge(parent);
    }

    private static String affine(long a, long b) {
        return "add(mul(param(pos), " + a + "), " + b + ")";
    }

    @Test
    void no_remainder_or_quotient_on_a_range_is_accepted_where_the_evaluator_differs() {
        List<String> holes = new ArrayList<>();
        int judged = 0;
        int rightRejected = 0;
        long[][] ranges = {{0, 3}, {-3, 0}, {2, 5}};
        for (long[] r : ranges) {
            for (int a : new int[] {1, -1, 2, -4}) {
                for (int b : new int[] {-5, -1, 0, 1, 4, 8}) {
                    for (int c : new int[] {4, -4, 3}) {
                        for (boolean rem : new boolean[] {true, false}) {
                            long[] v = new long[(int) (r[1] - r[0] + 1)];
                            for (int i = 0; i < v.length; i++) {
                                int x = (int) (a * (r[0] + i) + b);
                                v[i] = rem ? x % c : x / c;
                            }
                            long alpha = v[1] - v[0];
                            long beta = v[0] - alpha * r[0];
                            // the affine form agreeing at the range's first two values, shifted into the cache
                            long shift = 0;
                            long min = Math.min(v[0], v[0] + alpha * (v.length - 1));
                            if (min < 0) {
                                shift = -min;
                            }
                            long maxRow = Math.max(v[0], v[0] + alpha * (v.length - 1)) + shift;
                            if (maxRow >= 8) {
                                continue;
                            }
                            String e = "add(" + (rem ? "rem" : "div") + "(" + affine(a, b) + ", " + c + "), " + shift + ")";
                            SplitText.Judged j = cache(r[0], r[1], new String[] {affine(alpha, beta + shift)}, new String[] {"tanh(in0)"},
                                    new String[] {e}, new String[] {"tanh(in0)"});
                            judged++;
                            if (j.withParent().holds() && !j.agrees()) {
                                holes.add("pos in " + Arrays.toString(r) + ": " + e + " for " + affine(alpha, beta + shift) + ": " + j);
                            }
                            if (!j.withParent().holds() && j.agrees()) {
                                rightRejected++;
                            }
                        }
                    }
                }
            }
        }
        System.out.println("rem/div probes: " + judged + " judged, " + rightRejected + " right ones rejected");
        assertThat(holes).isEmpty();
    }

    @Test
    void no_pair_of_stores_reordered_is_accepted_where_their_rows_meet() {
        List<String> holes = new ArrayList<>();
        int judged = 0;
        int rightRejected = 0;
        long[][] ranges = {{0, 3}, {1, 3}, {0, 1}, {2, 4}};
        for (long[] r : ranges) {
            for (int a : new int[] {1, -1, 2}) {
                for (int b = -3; b <= 7; b++) {
                    long first = a * r[0] + b;
                    long last = a * r[1] + b;
                    if (Math.min(first, last) < 0 || Math.max(first, last) >= 8 || r[1] >= 8) {
                        continue;
                    }
                    String[] slots = {"param(pos)", affine(a, b)};
                    String[] values = {"tanh(in0)", "sigmoid(in0)"};
                    SplitText.Judged j = cache(r[0], r[1], slots, values, new String[] {slots[1], slots[0]}, new String[] {values[1], values[0]});
                    judged++;
                    if (j.withParent().holds() && !j.agrees()) {
                        holes.add("pos in " + Arrays.toString(r) + ": rows pos and " + slots[1] + " reordered: " + j);
                    }
                    if (!j.withParent().holds() && j.agrees()) {
                        rightRejected++;
                    }
                }
            }
        }
        System.out.println("reordered-store probes: " + judged + " judged, " + rightRejected + " right ones rejected");
        assertThat(holes).isEmpty();
    }

    // ---- Vocabulary-sharded embeddings: a range test whose comparison wraps ----

    private static final int VOCAB = 8;
    private static final int DIM = 4;
    private static final Interpreter INTERPRETER = new Interpreter(RunOptions.defaults().withThreads(1));

    private static SplitText embeddingParent() {
        return new SplitText("embedding", 1).input("tok", "i32", 0, 1).table("embed", 0, VOCAB, DIM).loadRow(0, "x", "embed", "@tok")
                .output("y", 0, "x");
    }

    /** Two chips of 4 rows each; chip c's local id is computed under {@code localTest[c]} and its row masked by {@code maskTest[c]} (in0: the id). */
    private static SplitText embedding(String[] localTest, String[] maskTest) {
        SplitText s = new SplitText("vocab-parallel-embedding", 2);
        List<String> parts = new ArrayList<>();
        List<String> sums = new ArrayList<>();
        for (int c = 0; c < 2; c++) {
            s.input("tok." + c, "i32", c, 1).shard("tok." + c, "tok", 0, 0, 1, 1);
            s.table("embed." + c, c, 4, DIM).shard("embed." + c, "embed", 0, 4 * c, 4 * c + 4, VOCAB);
            s.scalar(c, "local." + c, "select(" + localTest[c] + ", sub(in0, " + 4 * c + "), 0)", "tok." + c);
            s.loadRow(c, "row." + c, "embed." + c, "@local." + c);
            s.generic(c, "part." + c, new int[] {1, DIM}, "select(" + maskTest[c].replace("in0", "in1") + ", in0, 0.0)", "row." + c, "tok." + c);
            parts.add("part." + c);
            sums.add("y." + c);
        }
        s.allReduce("combine_rows", "sum", "y", parts, sums);
        for (int c = 0; c < 2; c++) {
            s.output("y." + c, c, "y." + c).shard("y." + c, "y", 0, 0, 1, 1);
        }
        return s;
    }

    /** Null when the split's outputs equal the parent's for every token id in [0, VOCAB); else the first difference or fault. */
    private static String evaluateEveryToken(SplitText split) {
        return VocabParallelEmbeddingTest.evaluate(split.program(), split.certificate(), embeddingParent().program(), VocabParallelEmbeddingTest.idRuns(false));
    }

    private static final String[] HONEST = {"and(ge(in0, 0), lt(in0, 4))", "and(ge(in0, 4), lt(in0, 8))"};
    /** id + (2^31 - 1) >= 2^31 - 1 holds for id = 0 only in i32 (id >= 1 wraps below), though it reads as id >= 0. */
    private static final String WRAPPING = "and(ge(add(in0, 2147483647), 2147483647), lt(in0, 4))";

    @Test
    void honest_range_tests_make_the_sharded_gather() {
        SplitText s = embedding(HONEST, HONEST);
        assertThat(evaluateEveryToken(s)).isNull();
        assertThat(new Verifier().verify(s.program(), s.certificate(), Parent.unsplit(embeddingParent().program())).codes()).isEmpty();
    }

    @Test
    void shards_declaring_a_smaller_vocabulary_than_the_parents_table_are_rejected() {
        // the chips hold rows [0, 3) and [3, 6) of a table they declare 6 rows long; the parent's has 8
        SplitText s = new SplitText("vocab-parallel-embedding", 2);
        List<String> parts = new ArrayList<>();
        List<String> sums = new ArrayList<>();
        for (int c = 0; c < 2; c++) {
            String test = "and(ge(in0, " + 3 * c + "), lt(in0, " + (3 * c + 3) + "))";
            s.input("tok." + c, "i32", c, 1).shard("tok." + c, "tok", 0, 0, 1, 1);
            s.table("embed." + c, c, 3, DIM).shard("embed." + c, "embed", 0, 3 * c, 3 * c + 3, 6);
            s.scalar(c, "local." + c, "select(" + test + ", sub(in0, " + 3 * c + "), 0)", "tok." + c);
            s.loadRow(c, "row." + c, "embed." + c, "@local." + c);
            s.generic(c, "part." + c, new int[] {1, DIM}, "select(" + test.replace("in0", "in1") + ", in0, 0.0)", "row." + c, "tok." + c);
            parts.add("part." + c);
            sums.add("y." + c);
        }
        s.allReduce("combine_rows", "sum", "y", parts, sums);
        for (int c = 0; c < 2; c++) {
            s.output("y." + c, c, "y." + c).shard("y." + c, "y", 0, 0, 1, 1);
        }
        String evaluator = evaluateEveryToken(s);
        assertThat(evaluator).as("the evaluator").isNotNull();
        VerifyReport r = new Verifier().verify(s.program(), s.certificate(), Parent.unsplit(embeddingParent().program()));
        assertThat(r.holds()).as("the evaluator: " + evaluator + "; the checker: " + r.diagnostics()).isFalse();
    }

    @Test
    void a_mask_whose_comparison_wraps_admits_only_id_0() {
        SplitText s = embedding(HONEST, new String[] {WRAPPING, HONEST[1]});
        String evaluator = evaluateEveryToken(s);
        assertThat(evaluator).as("the evaluator").isNotNull();
        VerifyReport r = new Verifier().verify(s.program(), s.certificate(), Parent.unsplit(embeddingParent().program()));
        assertThat(r.holds()).as("the evaluator: " + evaluator + "; the checker: " + r.diagnostics()).isFalse();
    }

    @Test
    void a_local_id_whose_test_wraps_reads_row_0_for_ids_1_to_3() {
        SplitText s = embedding(new String[] {WRAPPING, HONEST[1]}, HONEST);
        String evaluator = evaluateEveryToken(s);
        assertThat(evaluator).as("the evaluator").isNotNull();
        VerifyReport r = new Verifier().verify(s.program(), s.certificate(), Parent.unsplit(embeddingParent().program()));
        assertThat(r.holds()).as("the evaluator: " + evaluator + "; the checker: " + r.diagnostics()).isFalse();
    }
}
