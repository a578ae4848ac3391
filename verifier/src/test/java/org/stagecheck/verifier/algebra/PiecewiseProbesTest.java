package org.stagecheck.verifier.algebra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stagecheck.verifier.algebra.KvRingSlot.POS;
import static org.stagecheck.verifier.algebra.KvRingSlot.acceptedAndRight;
import static org.stagecheck.verifier.algebra.KvRingSlot.parent;
import static org.stagecheck.verifier.algebra.KvRingSlot.split;

import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

/**
 * Adversarial probes of the piecewise-index rule (docs/verifier.md, "Piecewise indices"): a KV
 * cache of {@code rows} rows and 6 columns, one new row written at a slot a {@code Scalar} stage
 * computes from {@code pos}, split over two chips by columns. Each probe is judged by the
 * reference evaluator over every {@code pos} of the split's range against the unsplit parent: a
 * split it shows wrong (another slot, or a block past the cache that faults) must be rejected
 * given the parent, and the right ones here are accepted.
 */
class PiecewiseProbesTest {
    private static SplitText.Judged rejectedAndWrong(SplitText split, SplitText parent, String what) {
        SplitText.Judged j = split.judge(parent);
        assertThat(j.agrees()).as("the evaluator shows it wrong, " + what + ": " + j).isFalse();
        assertThat(j.withParent().holds()).as("the checker must reject it, " + what + ": " + j).isFalse();
        return j;
    }

    // ---- i32 wrapping ----

    @Test
    void a_branch_that_wraps_and_comes_back_is_exact() {
        // both branches leave i32 before the subtraction brings them back: wrapping commutes with + and -
        String slot = "sub(select(ge(" + POS + ", 4), add(" + POS + ", 2147483643), add(" + POS + ", 2147483647)), 2147483647)";
        acceptedAndRight(split(4, 0, 7, slot), parent(4, 0, 7, "rem(" + POS + ", 4)"), slot);
    }

    @Test
    void a_condition_that_wraps_is_not_read_exactly() {
        // read exactly, pos + 2^31 - 5 < 2^31 - 1 is pos < 4 (the remainder); on i32 it wraps from pos 5 on and holds again
        String slot = "select(lt(add(" + POS + ", 2147483643), 2147483647), " + POS + ", sub(" + POS + ", 4))";
        SplitText.Judged j = rejectedAndWrong(split(8, 0, 7, slot), parent(8, 0, 7, "rem(" + POS + ", 4)"), slot);
        assertThat(j.run().detail()).contains("pos=5");
    }

    @Test
    void the_negation_of_min_value_is_min_value() {
        // -pos > 0 for every pos below 0, but not for -2^31, whose negation wraps to itself
        String parentSlot = "sub(" + POS + ", -2147483648)";
        String slot = "select(gt(neg(" + POS + "), 0), sub(" + POS + ", -2147483648), 3)";
        rejectedAndWrong(split(4, Integer.MIN_VALUE, Integer.MIN_VALUE + 3L, slot), parent(4, Integer.MIN_VALUE, Integer.MIN_VALUE + 3L, parentSlot), slot);
        String right = "select(lt(" + POS + ", -2147483644), sub(" + POS + ", -2147483648), add(sub(" + POS + ", -2147483644), 4))";
        acceptedAndRight(split(8, Integer.MIN_VALUE, Integer.MIN_VALUE + 7L, right), parent(8, Integer.MIN_VALUE, Integer.MIN_VALUE + 7L, parentSlot), right);
    }

    @Test
    void pos_plus_one_at_max_value_is_below_pos() {
        String slot = "select(gt(add(" + POS + ", 1), " + POS + "), 0, 1)";
        rejectedAndWrong(split(2, Integer.MAX_VALUE - 3L, Integer.MAX_VALUE, slot), parent(2, Integer.MAX_VALUE - 3L, Integer.MAX_VALUE, "0"), slot);
    }

    @Test
    void a_ring_at_the_top_of_i32_is_its_remainder() {
        String slot = "select(ge(rem(" + POS + ", 8), 4), sub(rem(" + POS + ", 8), 4), rem(" + POS + ", 8))";
        acceptedAndRight(split(4, Integer.MAX_VALUE - 7L, Integer.MAX_VALUE, slot), parent(4, Integer.MAX_VALUE - 7L, Integer.MAX_VALUE, "rem(" + POS + ", 4)"), slot);
    }

    @Test
    void a_max_of_a_wrapping_operand_is_not_read_exactly() {
        // read exactly, max(pos + 2^31 - 4, pos) - (2^31 - 4) is pos; on i32 the first operand wraps below pos from pos 4 on
        String slot = "sub(max(add(" + POS + ", 2147483644), " + POS + "), 2147483644)";
        rejectedAndWrong(split(8, 0, 7, slot), parent(8, 0, 7, POS), slot);
    }

    @Test
    void a_slot_that_jumps_across_i32_is_bounded_without_overflow() {
        // two values, -2^31 and 2^31 - 1: one line of slope 2^32 - 1; scaled by 2^40 in the offset the bounds overflow a long
        String slot = "select(eq(" + POS + ", 0), -2147483648, 2147483647)";
        SplitText s = split(4, 0, 1, slot);
        SplitText.Judged j = rejectedAndWrong(s, parent(4, 0, 1, "rem(" + POS + ", 4)"), slot);
        assertThat(j.alone().codes()).contains("GUARDED_BLOCK_OUT_OF_BOUNDS");
        BiConsumer<SplitText, Integer> scaled = (t, c) -> t.load("peek." + c, c, "cache." + c, new int[] {1, 3}, "1099511627776*@slot." + c, "0");
        SplitText.Judged far = rejectedAndWrong(split(4, 0, 1, scaled, slot), parent(4, 0, 1, "rem(" + POS + ", 4)"), "scaled by 2^40");
        assertThat(far.alone().codes()).contains("GUARDED_BLOCK_OUT_OF_BOUNDS");
    }

    // ---- division: truncation, negative divisors ----

    @Test
    void division_truncates_and_a_negative_divisor_negates_the_quotient() {
        String parentSlot = "add(div(" + POS + ", 4), 2)";
        acceptedAndRight(split(4, -8, 7, "sub(2, div(" + POS + ", -4))"), parent(4, -8, 7, parentSlot), "div by -4");
        // the floor quotient differs from the truncated one below 0 where 4 does not divide pos
        String floor = "add(select(lt(" + POS + ", 0), sub(div(add(" + POS + ", 1), 4), 1), div(" + POS + ", 4)), 2)";
        rejectedAndWrong(split(4, -8, 7, floor), parent(4, -8, 7, parentSlot), floor);
    }

    @Test
    void the_remainder_has_the_dividends_sign() {
        String parentSlot = "add(rem(" + POS + ", 4), 3)";
        acceptedAndRight(split(7, -8, 7, "add(rem(" + POS + ", -4), 3)"), parent(7, -8, 7, parentSlot), "rem by -4");
        rejectedAndWrong(split(7, -8, 7, "add(rem(neg(" + POS + "), 4), 3)"), parent(7, -8, 7, parentSlot), "rem of -pos");
        // the floor remainder is never negative: another slot below 0
        rejectedAndWrong(split(7, -8, 7, "add(select(lt(rem(" + POS + ", 4), 0), add(rem(" + POS + ", 4), 4), rem(" + POS + ", 4)), 3)"),
                parent(7, -8, 7, parentSlot), "floor rem");
    }

    // ---- conditions: eq, ne, logic, casts ----

    @Test
    void equality_conditions() {
        String rem = "rem(" + POS + ", 4)";
        SplitText parent = parent(4, 0, 7, rem);
        acceptedAndRight(split(4, 0, 7, "select(eq(" + POS + ", 4), 0, " + rem + ")"), parent, "eq at a point the remainder is 0 too");
        // 2 pos = 7 has no integer solution: the branch past the cache is never taken
        acceptedAndRight(split(4, 0, 7, "select(eq(mul(" + POS + ", 2), 7), 5, " + rem + ")"), parent, "eq with no solution");
        rejectedAndWrong(split(4, 0, 7, "select(eq(mul(" + POS + ", 2), 6), 0, " + rem + ")"), parent, "eq at pos 3");
        rejectedAndWrong(split(4, 0, 7, "select(ne(" + POS + ", 5), " + rem + ", 0)"), parent, "ne at pos 5");
    }

    @Test
    void logic_and_casts_in_conditions() {
        SplitText parent = parent(4, 0, 7, "rem(" + POS + ", 4)");
        acceptedAndRight(split(4, 0, 7, "select(and(ge(" + POS + ", 4), not(ge(" + POS + ", 8))), sub(" + POS + ", 4), " + POS + ")"), parent, "and/not");
        acceptedAndRight(split(4, 0, 7, "select(gt(i32(ge(" + POS + ", 4)), 0), sub(" + POS + ", 4), " + POS + ")"), parent, "a cast condition compared");
        SplitText.Judged or = rejectedAndWrong(split(4, 0, 7, "select(or(ge(" + POS + ", 4), eq(" + POS + ", 2)), sub(" + POS + ", 4), " + POS + ")"),
                parent, "or eq(pos, 2)");
        assertThat(or.alone().codes()).contains("GUARDED_BLOCK_OUT_OF_BOUNDS");
    }

    @Test
    void a_float_cast_rounds() {
        // f32 holds every integer up to 2^24 only: 2^24 + 1 rounds to 2^24
        long first = 1 << 24;
        String parentSlot = "sub(" + POS + ", 16777216)";
        rejectedAndWrong(split(8, first, first + 7, "sub(i32(f32(" + POS + ")), 16777216)"), parent(8, first, first + 7, parentSlot), "i32(f32(pos))");
    }

    // ---- several chips, several stages ----

    @Test
    void two_chips_one_of_them_wrong() {
        rejectedAndWrong(split(4, 0, 7, "rem(" + POS + ", 4)", "select(ge(" + POS + ", 4), sub(" + POS + ", 4), rem(" + POS + ", 3))"),
                parent(4, 0, 7, "rem(" + POS + ", 4)"), "chip 1 rem 3 below 4");
    }

    /** Chip c takes the slot {@code rem(pos, 4)} in one stage and writes at {@code turn} of it ({@code in0}), a second Scalar stage. */
    private static SplitText turned(String turn) {
        SplitText s = new SplitText("kv-ring-split", 2).param("pos", 0, 7);
        for (int c = 0; c < 2; c++) {
            s.state("cache." + c, c, 4, 3).shard("cache." + c, "cache", 1, 3 * c, 3 * c + 3, 6);
            s.input("x." + c, c, 1, 3).shard("x." + c, "x", 1, 3 * c, 3 * c + 3, 6);
            s.generic(c, "row." + c, new int[] {1, 3}, "tanh(in0)", "x." + c).scalar(c, "slot." + c, "rem(" + POS + ", 4)")
                    .scalar(c, "turned." + c, turn, "slot." + c).storeAt(c, "cache." + c, "row." + c, "@turned." + c, "0");
        }
        return s;
    }

    @Test
    void a_select_on_a_piecewise_slot_read_back() {
        // the parent turns the ring by 2 in one stage; the split takes the slot first, then a select on it (the guarded path)
        SplitText parent = parent(4, 0, 7, "rem(add(rem(" + POS + ", 4), 2), 4)");
        rejectedAndWrong(turned("select(ge(in0, 2), sub(in0, 2), add(in0, 1))"), parent, "turned by 1 below 2");
        rejectedAndWrong(turned("select(ge(in0, 2), sub(in0, 2), add(in0, 3))"), parent, "turned past the cache below 2");
        rejectedAndWrong(turned("select(ge(in0, 1), sub(in0, 2), add(in0, 2))"), parent, "a condition one off");
    }

    @Test
    void a_store_at_a_guarded_slot_whose_inside_is_the_parents() {
        // where the slot read back is 2 or 3 the split writes there, as the parent; at 0 and 1 it writes slot 3
        SplitText parent = parent(4, 0, 7, "rem(" + POS + ", 4)");
        SplitText.Judged j = rejectedAndWrong(turned("select(ge(in0, 2), in0, 3)"), parent, "inside the parent's slot, outside slot 3");
        assertThat(j.alone().codes()).contains("GUARDED_READ_UNMASKED");
        // both branches one position: the slot itself, right
        acceptedAndRight(turned("select(ge(in0, 2), in0, in0)"), parent, "both branches the parent's slot");
        // the slot read back lies in [0, 3]: the outside branch is never taken
        acceptedAndRight(turned("select(ge(in0, 0), in0, 3)"), parent, "a guard that always holds");
    }

    /** As {@link #turned}, the row written into a scratch copy of the cache at {@code turn} of the slot, then the copy stored back whole. */
    private static SplitText turnedThroughScratch(String turn) {
        SplitText s = new SplitText("kv-ring-split", 2).param("pos", 0, 7);
        for (int c = 0; c < 2; c++) {
            s.state("cache." + c, c, 4, 3).shard("cache." + c, "cache", 1, 3 * c, 3 * c + 3, 6);
            s.input("x." + c, c, 1, 3).shard("x." + c, "x", 1, 3 * c, 3 * c + 3, 6);
            s.tensor("tmp." + c, "scratch", c, 4, 3);
            s.load("old." + c, c, "cache." + c, new int[] {4, 3}, "0", "0").store("put_old." + c, c, "old." + c, "tmp." + c, "0", "0");
            s.generic(c, "row." + c, new int[] {1, 3}, "tanh(in0)", "x." + c).scalar(c, "slot." + c, "rem(" + POS + ", 4)")
                    .scalar(c, "turned." + c, turn, "slot." + c).store("put_row." + c, c, "row." + c, "tmp." + c, "@turned." + c, "0");
            s.load("new." + c, c, "tmp." + c, new int[] {4, 3}, "0", "0").store("put_new." + c, c, "new." + c, "cache." + c, "0", "0");
        }
        return s;
    }

    @Test
    void a_store_at_a_guarded_slot_into_a_scratch_copy() {
        SplitText parent = parent(4, 0, 7, "rem(" + POS + ", 4)");
        SplitText.Judged j = rejectedAndWrong(turnedThroughScratch("select(ge(in0, 2), in0, 3)"), parent, "through a scratch copy");
        assertThat(j.alone().codes()).contains("GUARDED_READ_UNMASKED");
    }

    // ---- ranges and the piece cap ----

    @Test
    void a_narrower_split_range_wrong_on_it() {
        rejectedAndWrong(split(4, 0, 3, "select(ge(" + POS + ", 2), 0, " + POS + ")"), parent(4, 0, 7, "rem(" + POS + ", 4)"), "narrower, wrong at 2");
    }

    @Test
    void a_narrower_split_range_right_on_it() {
        // on [0, 3] rem(pos, 4) is pos: the parent is analysed on the split's range, where its two pieces are one
        acceptedAndRight(split(4, 0, 3, POS), parent(4, 0, 7, "rem(" + POS + ", 4)"), "narrower, right on it");
        acceptedAndRight(split(4, 4, 7, "sub(" + POS + ", 4)"), parent(4, 0, 7, "rem(" + POS + ", 4)"), "narrower, the upper piece");
    }

    @Test
    void past_the_piece_cap_the_slot_is_opaque() {
        // rem(pos, 2) on [0, 32] is 33 pieces, past the cap of 32
        SplitText parent = parent(2, 0, 32, "rem(" + POS + ", 2)");
        rejectedAndWrong(split(2, 0, 32, "select(eq(" + POS + ", 32), 1, rem(" + POS + ", 2))"), parent, "off at pos 32 only");
    }

    // ---- the slot as the offset of other patterns ----

    @Test
    void a_streamed_load_at_the_slot_past_the_cache() {
        // two rows 2 apart from the slot: rows 4 and 5 for slots 2 and 3, past the cache (the load is read by nothing)
        BiConsumer<SplitText, Integer> load = (t, c) -> t.loadStreamed("peek." + c, c, "cache." + c, new int[] {1, 3}, 0, 2, 2, "@slot." + c, "0");
        SplitText.Judged j = rejectedAndWrong(split(4, 0, 7, load, "rem(" + POS + ", 4)"), parent(4, 0, 7, "rem(" + POS + ", 4)"), "streamed");
        assertThat(j.alone().codes()).contains("GUARDED_BLOCK_OUT_OF_BOUNDS");
    }

    @Test
    void a_block_load_at_a_one_piece_slot_past_the_cache() {
        // the select never takes its first branch on [0, 7]: the slot is pos + 3, one affine piece, past the 4-row cache from pos 1
        BiConsumer<SplitText, Integer> load = (t, c) -> t.scalar(c, "far." + c, "select(ge(" + POS + ", 100), 0, add(" + POS + ", 3))")
                .load("peek." + c, c, "cache." + c, new int[] {1, 3}, "@far." + c, "0");
        rejectedAndWrong(split(4, 0, 7, load, "rem(" + POS + ", 4)"), parent(4, 0, 7, "rem(" + POS + ", 4)"), "one piece");
    }

    @Test
    void a_block_load_at_a_constant_slot_past_the_cache() {
        BiConsumer<SplitText, Integer> load = (t, c) -> t.scalar(c, "far." + c, "add(2, 2)").load("peek." + c, c, "cache." + c, new int[] {1, 3}, "@far." + c, "0");
        SplitText.Judged j = rejectedAndWrong(split(4, 0, 7, load, "rem(" + POS + ", 4)"), parent(4, 0, 7, "rem(" + POS + ", 4)"), "constant");
        assertThat(j.alone().codes()).contains("GUARDED_BLOCK_OUT_OF_BOUNDS");
    }

    @Test
    void a_block_load_at_an_affine_slot_past_the_cache() {
        BiConsumer<SplitText, Integer> load = (t, c) -> t.scalar(c, "far." + c, "add(" + POS + ", 3)")
                .load("peek." + c, c, "cache." + c, new int[] {1, 3}, "@far." + c, "0");
        rejectedAndWrong(split(4, 0, 7, load, "rem(" + POS + ", 4)"), parent(4, 0, 7, "rem(" + POS + ", 4)"), "affine");
    }

    @Test
    void an_indirect_load_at_the_slot_past_the_cache() {
        // row 0 of the cache, columns [slot, slot + 2): past its 3 columns from slot 2 on
        BiConsumer<SplitText, Integer> load = (t, c) -> t.scalar(c, "zero." + c, "0").gatherAt(c, "peek." + c, "cache." + c, "zero." + c, 2, "@slot." + c);
        rejectedAndWrong(split(4, 0, 7, load, "rem(" + POS + ", 4)"), parent(4, 0, 7, "rem(" + POS + ", 4)"), "indirect");
    }
}
