package org.stagecheck.verifier.algebra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Integer arithmetic on partials (docs/verifier.md, "Integer partials"): each chip holds columns
 * {@code [4c, 4c+4)} of an i32 {@code x} ({@code [2, 8]}; the evaluator's inputs round to 0 for
 * i32, so the values come from the column), computes {@code e = x + j + base} at logical column
 * {@code j} (its local index plus its window's start), reduces with {@code fn}, applies
 * {@code after} and all-reduces; the unsplit parent computes {@code e} over the whole row, reduces
 * it and applies {@code after}. i32 arithmetic wraps and divides towards zero, so some rules of
 * the float algebra do not hold for it.
 */
class IntegerPartialsTest {
    private static final int[] ROW = {2, 1};

    /** {@code x + j + base} where column {@code index(1)} is logical column {@code j - start}. */
    private static String column(long base, int start) {
        return "add(in0, add(index(1), " + (base + start) + "))";
    }

    private static SplitText parent(long base, String fn, String after) {
        SplitText p = new SplitText("parent", 1).input("x", "i32", 0, 2, 8);
        p.generic(0, "e", "i32", new int[] {2, 8}, column(base, 0), "x").reduce(0, "m", fn, 1, "e");
        return p.generic(0, "z", "i32", ROW, after, "m").output("z", 0, "z");
    }

    private static SplitText split(long base, String fn, String after, String pool) {
        SplitText s = new SplitText("split", 2);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, "i32", c, 2, 4).shard("x." + c, "x", 1, 4 * c, 4 * c + 4, 8);
            s.generic(c, "e." + c, "i32", new int[] {2, 4}, column(base, 4 * c), "x." + c);
            s.reduce(c, "m." + c, fn, 1, "e." + c);
            s.generic(c, "t." + c, "i32", ROW, after, "m." + c);
        }
        s.allReduce("combine", pool, "z", List.of("t.0", "t.1"), List.of("z.0", "z.1"));
        for (int c = 0; c < 2; c++) {
            s.output("z." + c, c, "z." + c).shard("z." + c, "z", 0, 0, 2, 2);
        }
        return s;
    }

    /** All-reduced with the pool that completes the statistic in float arithmetic ({@code pool}). */
    private static SplitText.Judged judge(long base, String fn, String after, String pool) {
        return split(base, fn, after, pool).judge(parent(base, fn, after));
    }

    private static SplitText.Judged judge(long base, String fn, String after) {
        return judge(base, fn, after, fn);
    }

    @Test
    void an_integer_sum_partial_stays_one_through_mul_neg_and_sub() {
        // the ring of integers modulo 2^32: 3 * (a + b) = 3a + 3b, -(a + b) = -a - b
        for (String after : new String[] {"mul(in0, 3)", "neg(in0)", "sub(mul(in0, 5), in0)"}) {
            SplitText.Judged j = judge(1, "sum", after);
            assertThat(j.agrees()).as(after + ": " + j).isTrue();
            assertThat(j.alone().codes()).as(after + ": " + j).isEmpty();
            assertThat(j.withParent().codes()).as(after + ": " + j).isEmpty();
        }
    }

    @Test
    void integer_division_of_a_sum_partial_is_rejected_at_the_division() {
        // the row 1..8: (10 + 26) / 4 = 9, but 10/4 + 26/4 = 2 + 6 = 8
        SplitText.Judged j = judge(1, "sum", "div(in0, 4)");
        assertThat(j.agrees()).as(j.toString()).isFalse();
        assertThat(j.alone().codes()).as(j.toString()).contains("PARTIAL_NONLINEAR");
        assertThat(j.alone().diagnostics()).as(j.toString()).anySatisfy(d -> {
            assertThat(d.code()).isEqualTo("PARTIAL_NONLINEAR");
            assertThat(d.stageId()).isEqualTo("make_t.0");
            assertThat(d.message()).containsIgnoringCase("integer div");
        });
    }

    @Test
    void float_division_of_a_sum_partial_is_kept() {
        // the same split over f32 values divided by 2.0: linear, up to rounding
        SplitText p = new SplitText("parent", 1).input("x", 0, 2, 8).reduce(0, "m", "sum", 1, "x").generic(0, "z", ROW, "div(in0, 2.0)", "m").output("z", 0, "z");
        SplitText s = new SplitText("split", 2);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, c, 2, 4).shard("x." + c, "x", 1, 4 * c, 4 * c + 4, 8);
            s.reduce(c, "m." + c, "sum", 1, "x." + c);
            s.generic(c, "t." + c, ROW, "div(in0, 2.0)", "m." + c);
        }
        s.allReduce("combine", "sum", "z", List.of("t.0", "t.1"), List.of("z.0", "z.1"));
        for (int c = 0; c < 2; c++) {
            s.output("z." + c, c, "z." + c).shard("z." + c, "z", 0, 0, 2, 2);
        }
        SplitText.Judged j = s.judge(p);
        assertThat(j.agrees()).as(j.toString()).isTrue();
        assertThat(j.withParent().codes()).as(j.toString()).isEmpty();
    }

    @Test
    void an_integer_max_partial_plus_one_wraps_and_is_rejected() {
        // the row 2^31 - 8 .. 2^31 - 1: chip 1's local max 2^31 - 1 wraps to -2^31 after + 1, so the
        // chips' max is chip 0's 2^31 - 4, where the row's max + 1 wraps to -2^31
        SplitText.Judged j = judge(2147483640, "max", "add(in0, 1)");
        assertThat(j.agrees()).as(j.toString()).isFalse();
        assertThat(j.alone().codes()).as(j.toString()).contains("PARTIAL_NONLINEAR");
        assertThat(j.withParent().holds()).as(j.toString()).isFalse();
    }

    @Test
    void an_integer_min_partial_negated_wraps_and_is_rejected() {
        // the row -2^31 + 1 .. -2^31 + 8 less 1: chip 0's local min -2^31 negates to itself, so the
        // chips' max of negations is chip 1's 2^31 - 5, where the negated row min is -2^31
        SplitText.Judged j = judge(-2147483647, "min", "neg(sub(in0, 1))", "max");
        assertThat(j.agrees()).as(j.toString()).isFalse();
        assertThat(j.alone().codes()).as(j.toString()).contains("PARTIAL_NONLINEAR");
        assertThat(j.withParent().holds()).as(j.toString()).isFalse();
    }

    @Test
    void an_integer_max_partial_under_max_with_a_value_is_kept() {
        // max_c max(m_c, 0) = max(max_c m_c, 0): no arithmetic, nothing wraps
        SplitText.Judged j = judge(-4, "max", "max(in0, 0)");
        assertThat(j.agrees()).as(j.toString()).isTrue();
        assertThat(j.alone().codes()).as(j.toString()).isEmpty();
        assertThat(j.withParent().codes()).as(j.toString()).isEmpty();
    }
}
