package org.stagecheck.verifier.algebra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A summand and its negation cancel in a sum (docs/verifier.md, "Canonical sums"), whichever way
 * the negation is written ({@code neg}, {@code sub}, a scale or a division by -1): the unsplit
 * program is {@code y = tanh(x w1) w2 + b2}; each of two chips holds half of the contraction,
 * adds {@code b2} to its partial and takes it away again before the sum all-reduce, or does so to
 * the reduced value.
 */
class NegationCancelsTest {

    private static SplitText parent() {
        return new SplitText("mlp", 1).input("x", 0, 2, 8).input("w1", 0, 8, 8).input("w2", 0, 8, 8).input("b2", 0, 1, 8)
                .matmul(0, "h", "x", "w1", false, false).generic(0, "a", new int[] {2, 8}, "tanh(in0)", "h")
                .matmul(0, "p", "a", "w2", false, false).generic(0, "y", new int[] {2, 8}, "add(in0, in1)", "p", "b2").output("y", 0, "y");
    }

    /** Chip c applies {@code partial[c]} to (its partial, b2) before the all-reduce and {@code after} to (the sum, b2). */
    private static SplitText split(String[] partial, String after) {
        SplitText s = new SplitText("mlp-split", 2);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, c, 2, 8).shard("x." + c, "x", 0, 0, 2, 2);
            s.input("w1." + c, c, 8, 4).shard("w1." + c, "w1", 1, 4 * c, 4 * c + 4, 8);
            s.input("w2." + c, c, 4, 8).shard("w2." + c, "w2", 0, 4 * c, 4 * c + 4, 8);
            s.input("b2." + c, c, 1, 8).shard("b2." + c, "b2", 0, 0, 1, 1);
            s.matmul(c, "h." + c, "x." + c, "w1." + c, false, false).generic(c, "a." + c, new int[] {2, 4}, "tanh(in0)", "h." + c);
            s.matmul(c, "p." + c, "a." + c, "w2." + c, false, false).generic(c, "q." + c, new int[] {2, 8}, partial[c], "p." + c, "b2." + c);
        }
        s.allReduce("ar", "sum", "w2", List.of("q.0", "q.1"), List.of("r.0", "r.1"));
        for (int c = 0; c < 2; c++) {
            s.generic(c, "y." + c, new int[] {2, 8}, after, "r." + c, "b2." + c).output("y." + c, c, "y." + c).shard("y." + c, "y", 0, 0, 2, 2);
        }
        return s;
    }

    private static final String PLUS_B2 = "add(in0, in1)";

    @Test
    void a_bias_added_and_taken_away_before_the_reduce_cancels_however_the_negation_is_written() {
        for (String q : new String[] {
                "sub(add(in0, in1), in1)",
                "add(add(in0, in1), neg(in1))",
                "add(add(in0, in1), mul(in1, -1.0))",
                "add(mul(-1.0, in1), add(in1, in0))",
                "add(add(in0, in1), div(in1, -1.0))",
                "sub(in0, sub(in1, in1))",
        }) {
            SplitText.Judged j = split(new String[] {q, q}, PLUS_B2).judge(parent());
            assertThat(j.agrees()).as(q + ": " + j).isTrue();
            assertThat(j.alone().codes()).as(q + ": " + j).isEmpty();
            assertThat(j.withParent().codes()).as(q + ": " + j).isEmpty();
        }
    }

    @Test
    void a_bias_added_twice_and_taken_away_once_after_the_reduce_is_added_once() {
        SplitText.Judged j = split(new String[] {"in0", "in0"}, "sub(add(add(in0, in1), in1), in1)").judge(parent());
        assertThat(j.agrees()).as(j.toString()).isTrue();
        assertThat(j.withParent().codes()).as(j.toString()).isEmpty();
    }

    @Test
    void what_is_not_the_negation_does_not_cancel() {
        // -2 b2 is no negation of b2: every chip adds -b2 to its partial, so the sum holds -2 b2
        SplitText.Judged scaled = split(new String[] {"add(add(in0, in1), mul(in1, -2.0))", "add(add(in0, in1), mul(in1, -2.0))"}, PLUS_B2).judge(parent());
        assertThat(scaled.agrees()).as(scaled.toString()).isFalse();
        assertThat(scaled.alone().codes()).as(scaled.toString()).contains("PARTIAL_PLUS_FULL");
        // neg(neg(b2)) is b2: added twice on every chip
        SplitText.Judged twice = split(new String[] {"add(add(in0, in1), neg(neg(in1)))", "add(add(in0, in1), neg(neg(in1)))"}, PLUS_B2).judge(parent());
        assertThat(twice.agrees()).as(twice.toString()).isFalse();
        assertThat(twice.alone().codes()).as(twice.toString()).contains("PARTIAL_PLUS_FULL");
        // b2 scaled by 2, then taken away twice by another scale: b2 is left out
        SplitText.Judged dropped = split(new String[] {"in0", "in0"}, "sub(add(add(in0, in1), in1), mul(in1, 2.0))").judge(parent());
        assertThat(dropped.agrees()).as(dropped.toString()).isFalse();
        assertThat(dropped.withParent().codes()).as(dropped.toString()).containsOnly("LOGICAL_OUTPUT_DIFFERS");
    }

    @Test
    void a_chip_that_does_not_take_the_bias_away_keeps_it() {
        SplitText.Judged j = split(new String[] {"sub(add(in0, in1), in1)", "add(in0, in1)"}, PLUS_B2).judge(parent());
        assertThat(j.agrees()).as(j.toString()).isFalse();
        assertThat(j.withParent().codes()).as(j.toString()).containsOnly("LOGICAL_OUTPUT_DIFFERS");
        assertThat(j.withParent().diagnostics()).as(j.toString()).allSatisfy(d -> assertThat(d.stageId()).startsWith("store_y."));
    }
}
