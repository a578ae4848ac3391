package org.stagecheck.verifier.algebra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A select between two partials recombined by the all-reduce (docs/verifier.md, "Canonical
 * sums"): the unsplit program is {@code y = select(g > 0, tanh(x w1) w2, sigmoid(x w1) w2)};
 * each of two chips holds half of both contractions and selects between its two partials by the
 * replicated gate {@code g}, then one sum all-reduce completes both. Since the condition is the
 * same on every chip, {@code sum_c select(k, a_c, b_c) = select(k, sum_c a_c, sum_c b_c)}.
 */
class SelectOfPartialsTest {

    private static SplitText parent() {
        return new SplitText("gated", 1).input("x", 0, 2, 8).input("w1", 0, 8, 8).input("w2", 0, 8, 8).input("g", 0, 2, 8)
                .matmul(0, "h", "x", "w1", false, false)
                .generic(0, "t", new int[] {2, 8}, "tanh(in0)", "h").generic(0, "s", new int[] {2, 8}, "sigmoid(in0)", "h")
                .matmul(0, "p1", "t", "w2", false, false).matmul(0, "p2", "s", "w2", false, false)
                .generic(0, "y", new int[] {2, 8}, "select(gt(in2, 0.0), in0, in1)", "p1", "p2", "g").output("y", 0, "y");
    }

    /** Chip c computes {@code select[c]} over (its tanh partial, its sigmoid partial, g). */
    private static SplitText split(String... select) {
        SplitText s = new SplitText("gated-split", 2);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, c, 2, 8).shard("x." + c, "x", 0, 0, 2, 2);
            s.input("w1." + c, c, 8, 4).shard("w1." + c, "w1", 1, 4 * c, 4 * c + 4, 8);
            s.input("w2." + c, c, 4, 8).shard("w2." + c, "w2", 0, 4 * c, 4 * c + 4, 8);
            s.input("g." + c, c, 2, 8).shard("g." + c, "g", 0, 0, 2, 2);
            s.matmul(c, "h." + c, "x." + c, "w1." + c, false, false);
            s.generic(c, "t." + c, new int[] {2, 4}, "tanh(in0)", "h." + c).generic(c, "s." + c, new int[] {2, 4}, "sigmoid(in0)", "h." + c);
            s.matmul(c, "p1." + c, "t." + c, "w2." + c, false, false).matmul(c, "p2." + c, "s." + c, "w2." + c, false, false);
            s.generic(c, "q." + c, new int[] {2, 8}, select[c], "p1." + c, "p2." + c, "g." + c);
        }
        s.allReduce("ar", "sum", "w2", List.of("q.0", "q.1"), List.of("r.0", "r.1"));
        for (int c = 0; c < 2; c++) {
            s.output("y." + c, c, "r." + c).shard("y." + c, "y", 0, 0, 2, 2);
        }
        return s;
    }

    @Test
    void a_select_between_partials_under_a_condition_every_chip_shares_is_the_select_of_the_sums() {
        for (String q : new String[] {"select(gt(in2, 0.0), in0, in1)", "select(le(in2, 0.0), in1, in0)"}) {
            SplitText.Judged j = split(q, q).judge(parent());
            assertThat(j.agrees()).as(q + ": " + j).isTrue();
            assertThat(j.alone().codes()).as(q + ": " + j).isEmpty();
            if (q.startsWith("select(gt")) {
                assertThat(j.withParent().codes()).as(q + ": " + j).isEmpty();
            } else {
                // a limit: le(g, 0) with the branches swapped is another formula than the parent's gt(g, 0)
                assertThat(j.withParent().codes()).as(q + ": " + j).containsOnly("LOGICAL_OUTPUT_DIFFERS");
            }
        }
    }

    @Test
    void a_condition_that_differs_between_chips_is_rejected() {
        SplitText.Judged j = split("select(gt(in2, 0.0), in0, in1)", "select(lt(in2, 0.0), in0, in1)").judge(parent());
        assertThat(j.agrees()).as(j.toString()).isFalse();
        assertThat(j.alone().holds()).as(j.toString()).isFalse();
        assertThat(j.alone().diagnostics()).as(j.toString()).allSatisfy(d -> assertThat(d.stageId()).isEqualTo("ar"));
        assertThat(j.withParent().holds()).as(j.toString()).isFalse();
    }

    @Test
    void a_condition_on_the_chips_own_partial_is_rejected() {
        String q = "select(gt(in0, 0.0), in0, in1)";
        SplitText.Judged j = split(q, q).judge(parent());
        assertThat(j.agrees()).as(j.toString()).isFalse();
        assertThat(j.alone().codes()).as(j.toString()).contains("PARTIAL_NONLINEAR");
    }

    @Test
    void branches_swapped_on_one_chip_are_rejected() {
        SplitText.Judged j = split("select(gt(in2, 0.0), in0, in1)", "select(gt(in2, 0.0), in1, in0)").judge(parent());
        assertThat(j.agrees()).as(j.toString()).isFalse();
        assertThat(j.alone().holds()).as(j.toString()).isFalse();
        assertThat(j.withParent().holds()).as(j.toString()).isFalse();
    }
}
