package org.stagecheck.verifier.algebra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.function.BiConsumer;

/**
 * The KV ring whose slot is a piecewise index (docs/verifier.md, "Piecewise indices"): the unsplit
 * program writes a new row of a {@code rows}-row, 6-column cache at a slot computed by a
 * {@code Scalar} stage; the split holds three columns per chip on two chips, each computing its
 * own slot. Shared by the tests and probes of that rule.
 */
final class KvRingSlot {
    static final String POS = "param(pos)";

    private KvRingSlot() {}

    /** The unsplit program, {@code pos} in [first, last], the row stored at {@code slot}. */
    static SplitText parent(int rows, long first, long last, String slot) {
        return new SplitText("kv-ring", 1).param("pos", first, last).state("cache", 0, rows, 6).input("x", 0, 1, 6)
                .generic(0, "row", new int[] {1, 6}, "tanh(in0)", "x").scalar(0, "slot", slot).storeAt(0, "cache", "row", "@slot", "0");
    }

    /**
     * Two chips of three columns each, chip c computing its slot as {@code slots[c]} (the last for
     * both when one is given); {@code extra} adds stages on chip c.
     */
    static SplitText split(int rows, long first, long last, BiConsumer<SplitText, Integer> extra, String... slots) {
        SplitText s = new SplitText("kv-ring-split", 2).param("pos", first, last);
        for (int c = 0; c < 2; c++) {
            s.state("cache." + c, c, rows, 3).shard("cache." + c, "cache", 1, 3 * c, 3 * c + 3, 6);
            s.input("x." + c, c, 1, 3).shard("x." + c, "x", 1, 3 * c, 3 * c + 3, 6);
            s.generic(c, "row." + c, new int[] {1, 3}, "tanh(in0)", "x." + c)
                    .scalar(c, "slot." + c, slots[Math.min(c, slots.length - 1)]).storeAt(c, "cache." + c, "row." + c, "@slot." + c, "0");
            extra.accept(s, c);
        }
        return s;
    }

    static SplitText split(int rows, long first, long last, String... slots) {
        return split(rows, first, last, (s, c) -> { }, slots);
    }

    /** Accepted alone and given the parent, and the evaluator agrees. */
    static void acceptedAndRight(SplitText split, SplitText parent, String what) {
        SplitText.Judged j = split.judge(parent);
        assertThat(j.agrees()).as(what + ": " + j).isTrue();
        assertThat(j.alone().codes()).as(what + ": " + j).isEmpty();
        assertThat(j.withParent().codes()).as(what + ": " + j).isEmpty();
    }
}
