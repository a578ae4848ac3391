package org.stagecheck.verifier.algebra;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@code rem} and {@code div} of an index by a constant, simplified on the parameters' declared
 * ranges (docs/verifier.md, "Regions"): the unsplit program writes row {@code pos} of a
 * 4-row cache ({@code pos} in [0, 3]); each of two chips (replicas) computes the row in a
 * {@code Scalar} stage as a ring position and stores there. {@code rem(pos, 4)} is {@code pos}
 * on that range, and so are the other right forms; a ring rotated by one, a ring of 2 and a
 * quotient in place of the remainder write other rows.
 */
class ModuloIndexTest {

    private static SplitText parent() {
        return new SplitText("ring", 1).param("pos", 0, 3).input("x", 0, 1, 8).tensor("kv", "state", 0, 4, 8)
                .generic(0, "y", new int[] {1, 8}, "tanh(in0)", "x").store("st_kv", 0, "y", "kv", "pos", "0");
    }

    private static SplitText split(String slot) {
        SplitText s = new SplitText("ring-split", 2).param("pos", 0, 3);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, c, 1, 8).shard("x." + c, "x", 0, 0, 1, 1);
            s.tensor("kv." + c, "state", c, 4, 8).shard("kv." + c, "kv", 0, 0, 4, 4);
            s.generic(c, "y." + c, new int[] {1, 8}, "tanh(in0)", "x." + c);
            s.scalar(c, "slot." + c, slot);
            s.store("st_kv." + c, c, "y." + c, "kv." + c, "@slot." + c, "0");
        }
        return s;
    }

    @Test
    void a_remainder_or_quotient_that_the_range_fixes_is_the_index_itself() {
        for (String slot : new String[] {
                "rem(param(pos), 4)", // pos in [0, 3]: the remainder is pos
                "rem(add(param(pos), 4), 4)", // pos + 4 in [4, 7]: quotient 1, remainder pos
                "add(div(param(pos), 4), param(pos))", // the quotient is 0
        }) {
            SplitText.Judged j = split(slot).judge(parent());
            assertThat(j.agrees()).as(slot + ": " + j).isTrue();
            assertThat(j.alone().codes()).as(slot + ": " + j).isEmpty();
            assertThat(j.withParent().codes()).as(slot + ": " + j).isEmpty();
        }
    }

    @Test
    void a_negative_dividend_truncates_toward_zero() {
        // rem(-pos, 4) is -pos (the dividend's sign), so its negation is pos
        SplitText.Judged j = split("neg(rem(neg(param(pos)), 4))").judge(parent());
        assertThat(j.agrees()).as(j.toString()).isTrue();
        assertThat(j.withParent().codes()).as(j.toString()).isEmpty();
    }

    @Test
    void a_quotient_of_a_sum_splits_at_the_multiple() {
        // 4*pos + 2: quotient pos, remainder 2 (the rest 2 lies within one multiple of 4)
        SplitText.Judged j = split("sub(div(add(mul(param(pos), 4), 2), 4), rem(add(mul(param(pos), 4), 2), 4))").judge(parent());
        assertThat(j.agrees()).as(j.toString()).isFalse(); // pos - 2: another row, and before row 0 for pos 0 and 1
        assertThat(j.run().detail()).as(j.toString()).contains("the split faults");
        assertThat(j.withParent().codes()).as(j.toString()).containsOnly("LOGICAL_OUTPUT_DIFFERS", "GUARDED_BLOCK_OUT_OF_BOUNDS");
        assertThat(j.alone().codes()).as(j.toString()).containsOnly("GUARDED_BLOCK_OUT_OF_BOUNDS");
        SplitText.Judged right = split("add(div(add(mul(param(pos), 4), 2), 4), sub(rem(add(mul(param(pos), 4), 2), 4), 2))").judge(parent());
        assertThat(right.agrees()).as(right.toString()).isTrue();
        assertThat(right.withParent().codes()).as(right.toString()).isEmpty();
    }

    @Test
    void a_ring_that_wraps_inside_the_range_is_another_row() {
        for (String slot : new String[] {
                "rem(add(param(pos), 1), 4)", // rotated by one: pos + 1 in [1, 4] crosses 4
                "rem(param(pos), 2)", // a ring of 2: pos crosses 2
                "div(param(pos), 4)", // the quotient, 0: row 0 for every pos
        }) {
            SplitText.Judged j = split(slot).judge(parent());
            assertThat(j.agrees()).as(slot + ": " + j).isFalse();
            assertThat(j.withParent().codes()).as(slot + ": " + j).containsOnly("LOGICAL_OUTPUT_DIFFERS");
            assertThat(j.withParent().diagnostics()).as(slot + ": " + j).allSatisfy(d -> assertThat(d.stageId()).startsWith("st_kv."));
        }
    }
}
