package org.stagecheck.verifier.algebra;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Stores at positions that depend on a parameter, disjoint for every value of it in its declared
 * range (docs/verifier.md, "Regions"): row {@code pos} and row 4 of a 5-row cache share no
 * element while {@code pos} lies in [0, 3], so they may be written in either order and row 4 read
 * back past the store at {@code pos}. With {@code pos} in [0, 4] they meet at {@code pos = 4}, and
 * the same splits are wrong. Two replicas (chips) of one-row values: {@code a} is row 0 of
 * {@code x}, {@code b} row 1.
 */
class DisjointStoresTest {

    /** The unsplit program: b to row 4, then a to row {@code pos}. */
    private static SplitText cacheParent(int maxPos) {
        return new SplitText("cache", 1).param("pos", 0, maxPos).input("x", 0, 2, 8).tensor("kv", "state", 0, 5, 8)
                .load("a", 0, "x", new int[] {1, 8}, "0", "0").load("b", 0, "x", new int[] {1, 8}, "1", "0")
                .store("st_b", 0, "b", "kv", "4", "0").store("st_a", 0, "a", "kv", "pos", "0");
    }

    /** Each chip: a to row {@code pos} first, then b to row 4. */
    private static SplitText cacheSwapped(int maxPos) {
        SplitText s = new SplitText("cache-swapped", 2).param("pos", 0, maxPos);
        for (int c = 0; c < 2; c++) {
            s.tensor("x." + c, "input", c, 2, 8).shard("x." + c, "x", 0, 0, 2, 2);
            s.tensor("kv." + c, "state", c, 5, 8).shard("kv." + c, "kv", 0, 0, 5, 5);
            s.load("a." + c, c, "x." + c, new int[] {1, 8}, "0", "0").load("b." + c, c, "x." + c, new int[] {1, 8}, "1", "0");
            s.store("st_a." + c, c, "a." + c, "kv." + c, "pos", "0").store("st_b." + c, c, "b." + c, "kv." + c, "4", "0");
        }
        return s;
    }

    @Test
    void stores_disjoint_for_every_value_in_range_may_come_in_either_order() {
        SplitText.Judged j = cacheSwapped(3).judge(cacheParent(3));
        assertThat(j.agrees()).as(j.toString()).isTrue();
        assertThat(j.alone().codes()).as(j.toString()).isEmpty();
        assertThat(j.withParent().codes()).as(j.toString()).isEmpty();
    }

    @Test
    void stores_that_meet_at_one_value_in_range_may_not() {
        SplitText.Judged j = cacheSwapped(4).judge(cacheParent(4));
        assertThat(j.agrees()).as(j.toString()).isFalse(); // pos = 4: the parent's row 4 holds a, the split's b
        assertThat(j.withParent().codes()).as(j.toString()).containsOnly("LOGICAL_OUTPUT_DIFFERS");
        assertThat(j.withParent().diagnostics()).as(j.toString()).allSatisfy(d -> assertThat(d.stageId()).startsWith("st_b."));
    }

    /** The unsplit program: y is b. */
    private static SplitText readBackParent(int maxPos) {
        return new SplitText("read-back", 1).param("pos", 0, maxPos).input("x", 0, 2, 8)
                .load("b", 0, "x", new int[] {1, 8}, "1", "0").output("y", 0, "b");
    }

    /** Each chip: b to row 4 of a scratch, a to row {@code pos}, row 4 read back as y. */
    private static SplitText readBack(int maxPos) {
        SplitText s = new SplitText("read-back-split", 2).param("pos", 0, maxPos);
        for (int c = 0; c < 2; c++) {
            s.tensor("x." + c, "input", c, 2, 8).shard("x." + c, "x", 0, 0, 2, 2).tensor("s." + c, "scratch", c, 5, 8);
            s.load("a." + c, c, "x." + c, new int[] {1, 8}, "0", "0").load("b." + c, c, "x." + c, new int[] {1, 8}, "1", "0");
            s.store("st_b." + c, c, "b." + c, "s." + c, "4", "0").store("st_a." + c, c, "a." + c, "s." + c, "pos", "0");
            s.load("y." + c, c, "s." + c, new int[] {1, 8}, "4", "0").output("y." + c, c, "y." + c).shard("y." + c, "y", 0, 0, 1, 1);
        }
        return s;
    }

    @Test
    void a_row_read_back_past_a_store_disjoint_from_it_is_what_was_stored_there() {
        SplitText.Judged j = readBack(3).judge(readBackParent(3));
        assertThat(j.agrees()).as(j.toString()).isTrue();
        assertThat(j.alone().codes()).as(j.toString()).isEmpty();
        assertThat(j.withParent().codes()).as(j.toString()).isEmpty();
    }

    @Test
    void a_row_read_back_past_a_store_that_can_overwrite_it_is_not() {
        SplitText.Judged j = readBack(4).judge(readBackParent(4));
        assertThat(j.agrees()).as(j.toString()).isFalse(); // pos = 4: a overwrote b
        // the load gets the scratch's content, which is each chip's own (an undeclared scratch)
        assertThat(j.withParent().codes()).as(j.toString()).contains("LOGICAL_OUTPUT_DIFFERS").containsOnly("LOGICAL_OUTPUT_DIFFERS", "OUTPUT_CHIPS_DIFFER");
        assertThat(j.withParent().diagnostics()).as(j.toString()).allSatisfy(d -> assertThat(d.stageId()).startsWith("store_y."));
    }

    @Test
    void rows_two_pos_and_two_pos_plus_one_are_apart_however_the_offset_is_written() {
        SplitText u = new SplitText("pairs", 1).param("pos", 0, 3).input("x", 0, 2, 8).tensor("kv", "state", 0, 8, 8)
                .load("a", 0, "x", new int[] {1, 8}, "0", "0").load("b", 0, "x", new int[] {1, 8}, "1", "0")
                .store("st_a", 0, "a", "kv", "2*pos", "0").store("st_b", 0, "b", "kv", "2*pos + 1", "0");
        SplitText s = new SplitText("pairs-split", 2).param("pos", 0, 3);
        for (int c = 0; c < 2; c++) {
            s.tensor("x." + c, "input", c, 2, 8).shard("x." + c, "x", 0, 0, 2, 2);
            s.tensor("kv." + c, "state", c, 8, 8).shard("kv." + c, "kv", 0, 0, 8, 8);
            s.load("a." + c, c, "x." + c, new int[] {1, 8}, "0", "0").load("b." + c, c, "x." + c, new int[] {1, 8}, "1", "0");
            s.scalar(c, "odd." + c, "add(mul(param(pos), 2), 1)");
            s.store("st_b." + c, c, "b." + c, "kv." + c, "@odd." + c, "0").store("st_a." + c, c, "a." + c, "kv." + c, "pos + pos", "0");
        }
        SplitText.Judged j = s.judge(u);
        assertThat(j.agrees()).as(j.toString()).isTrue();
        assertThat(j.withParent().codes()).as(j.toString()).isEmpty();
    }
}
