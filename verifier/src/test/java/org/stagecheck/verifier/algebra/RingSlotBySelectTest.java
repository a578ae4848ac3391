package org.stagecheck.verifier.algebra;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A KV cache slot as a piecewise index (docs/verifier.md, "Piecewise indices"): the unsplit
 * program writes a new row of a 4-row cache at slot {@code rem(pos, 4)}; each of two chips holds
 * half the columns and computes the slot in a {@code Scalar} stage. On {@code pos} in [0, 7] the
 * ring wraps once, so {@code rem(pos, 4)} is {@code pos} up to 3 and {@code pos - 4} from 4 on:
 * every way of writing those two pieces is accepted and the evaluator agrees; a slot one piece off,
 * a wrong branch, a range that needs a third piece and swapped branches are rejected at the store,
 * and the evaluator shows each wrong (a write past the cache faults).
 */
class RingSlotBySelectTest {
    private static final String POS = KvRingSlot.POS;

    private static SplitText parent(long last, String slot) {
        return KvRingSlot.parent(4, 0, last, slot);
    }

    private static SplitText parent(long last) {
        return parent(last, "rem(" + POS + ", 4)");
    }

    /** Two chips of three columns each, chip c computing its slot as {@code slots[c]}. */
    private static SplitText split(long last, String... slots) {
        return split(0, last, slots);
    }

    private static SplitText split(long first, long last, String... slots) {
        return KvRingSlot.split(4, first, last, slots);
    }

    private static void accepted(SplitText split, SplitText parent, String what) {
        KvRingSlot.acceptedAndRight(split, parent, what);
    }

    /** A block past the cache: rejected alone and given the parent, and the split faults on the evaluator at the first wrong pos. */
    private static void pastTheCache(SplitText split, SplitText parent, String what) {
        SplitText.Judged j = rejected(split, parent, "GUARDED_BLOCK_OUT_OF_BOUNDS", what);
        assertThat(j.run().detail()).as(what + ": " + j).contains("the split faults");
    }

    /**
     * Rejected given the parent with {@code code} among the findings, located at a chip's store; and
     * wrong on the evaluator. A block past the cache is found without the parent too.
     */
    private static SplitText.Judged rejected(SplitText split, SplitText parent, String code, String what) {
        SplitText.Judged j = split.judge(parent);
        assertThat(j.agrees()).as(what + ": " + j).isFalse();
        if (code.equals("GUARDED_BLOCK_OUT_OF_BOUNDS")) {
            assertThat(j.alone().codes()).as(what + ": " + j).contains(code);
        }
        assertThat(j.withParent().codes()).as(what + ": " + j).contains(code);
        assertThat(j.withParent().diagnostics()).as(what + ": " + j)
                .filteredOn(d -> d.code().equals(code)).isNotEmpty().allSatisfy(d -> assertThat(d.stageId()).startsWith("store_row."));
        return j;
    }

    @Test
    void the_slot_written_with_a_select_is_the_remainder() {
        for (String slot : new String[] {
                "select(ge(" + POS + ", 4), sub(" + POS + ", 4), " + POS + ")",
                "select(lt(" + POS + ", 4), " + POS + ", sub(" + POS + ", 4))", // the test turned round, the branches swapped
                "select(gt(" + POS + ", 3), add(" + POS + ", -4), " + POS + ")",
                "select(not(le(sub(" + POS + ", 4), -1)), sub(" + POS + ", 4), " + POS + ")",
                "sub(" + POS + ", mul(i32(ge(" + POS + ", 4)), 4))", // the quotient as a cast condition
                "min(" + POS + ", select(ge(" + POS + ", 4), sub(" + POS + ", 4), 100))",
                "rem(" + POS + ", 4)",
        }) {
            accepted(split(7, slot), parent(7), slot);
        }
    }

    @Test
    void a_parent_that_selects_is_the_split_that_takes_the_remainder() {
        accepted(split(7, "rem(" + POS + ", 4)"), parent(7, "select(ge(" + POS + ", 4), sub(" + POS + ", 4), " + POS + ")"), "rem against select");
        // the chips write the slot two ways, one each
        accepted(split(7, "rem(" + POS + ", 4)", "select(lt(" + POS + ", 4), " + POS + ", sub(" + POS + ", 4))"), parent(7), "one chip each way");
    }

    @Test
    void a_range_that_wraps_twice_is_three_pieces() {
        String nested = "select(ge(" + POS + ", 8), sub(" + POS + ", 8), select(ge(" + POS + ", 4), sub(" + POS + ", 4), " + POS + "))";
        accepted(split(11, nested), parent(11), nested);
        // below 0 the remainder keeps the dividend's sign: the parent wraps it back by hand, the split by a select
        String wrappedRem = "select(lt(rem(" + POS + ", 4), 0), add(rem(" + POS + ", 4), 4), rem(" + POS + ", 4))";
        SplitText negativeParent = new SplitText("kv-ring", 1).param("pos", -4, 3).state("cache", 0, 4, 6).input("x", 0, 1, 6)
                .generic(0, "row", new int[] {1, 6}, "tanh(in0)", "x").scalar(0, "slot", wrappedRem).storeAt(0, "cache", "row", "@slot", "0");
        accepted(split(-4, 3, "select(lt(" + POS + ", 0), add(" + POS + ", 4), " + POS + ")"), negativeParent, "below 0");
    }

    @Test
    void a_condition_one_off_writes_past_the_cache() {
        pastTheCache(split(7, "select(ge(" + POS + ", 5), sub(" + POS + ", 4), " + POS + ")"), parent(7), "ge(pos, 5)");
        pastTheCache(split(7, "select(ge(" + POS + ", 3), sub(" + POS + ", 4), " + POS + ")"), parent(7), "ge(pos, 3)");
    }

    @Test
    void a_wrong_branch_is_another_slot_or_past_the_cache() {
        String branch = "select(ge(" + POS + ", 4), sub(" + POS + ", 3), " + POS + ")"; // pos - W + 1
        // pos 4 writes slot 1 (the evaluator differs there first), pos 7 slot 4, past the cache
        rejected(split(7, branch), parent(7), "GUARDED_BLOCK_OUT_OF_BOUNDS", "pos - 3 up to pos 7");
        // up to pos 6 the slot stays in the cache, one row off from pos 4 on
        rejected(split(6, branch), parent(6), "LOGICAL_OUTPUT_DIFFERS", "pos - 3 up to pos 6");
        // on one chip only: the chips' halves of the row land in different slots
        rejected(split(6, "rem(" + POS + ", 4)", branch), parent(6), "LOGICAL_OUTPUT_DIFFERS", "pos - 3 on chip 1");
    }

    @Test
    void a_range_wider_than_two_rings_needs_a_third_piece() {
        String select = "select(ge(" + POS + ", 4), sub(" + POS + ", 4), " + POS + ")";
        pastTheCache(split(8, select), parent(8), "pos up to 8");
        rejected(split(8, select), parent(8), "LOGICAL_OUTPUT_DIFFERS", "pos up to 8");
    }

    @Test
    void swapped_branches_write_outside_the_cache() {
        pastTheCache(split(7, "select(ge(" + POS + ", 4), " + POS + ", sub(" + POS + ", 4))"), parent(7), "swapped");
    }
}
