package org.stagecheck.verifier.algebra;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@code index() + offset} on a shifted shard (docs/verifier.md, "Vocabulary-parallel arg-max"):
 * the parent keeps the first 5 columns of {@code x} ({@code [2, 8]}) and zeroes the rest,
 * {@code select(lt(index(1), 5), x, 0)}; each chip holds columns {@code [4c, 4c+4)} and adds its
 * window's start to {@code index(1)} to get the logical column.
 */
class IndexOffsetTest {

    private static SplitText parent() {
        return new SplitText("mask", 1).input("x", 0, 2, 8).generic(0, "y", new int[] {2, 8}, "select(lt(index(1), 5), in0, 0.0)", "x").output("y", 0, "y");
    }

    private static SplitText split(int[] offsets) {
        SplitText s = new SplitText("mask-split", 2);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, c, 2, 4).shard("x." + c, "x", 1, 4 * c, 4 * c + 4, 8);
            s.generic(c, "y." + c, new int[] {2, 4}, "select(lt(add(index(1), " + offsets[c] + "), 5), in0, 0.0)", "x." + c);
            s.output("y." + c, c, "y." + c).shard("y." + c, "y", 1, 4 * c, 4 * c + 4, 8);
        }
        return s;
    }

    @Test
    void the_local_index_plus_the_windows_start_is_the_logical_index() {
        SplitText.Judged j = split(new int[] {0, 4}).judge(parent());
        assertThat(j.agrees()).as(j.toString()).isTrue();
        assertThat(j.alone().codes()).as(j.toString()).isEmpty();
        assertThat(j.withParent().codes()).as(j.toString()).isEmpty();
    }

    @Test
    void a_wrong_offset_is_another_index() {
        for (int[] offsets : new int[][] {{0, 0}, {0, 3}}) {
            SplitText.Judged j = split(offsets).judge(parent());
            assertThat(j.agrees()).as(j.toString()).isFalse();
            assertThat(j.alone().holds()).as(j.toString()).isFalse();
            assertThat(j.withParent().codes()).as(j.toString()).contains("LOGICAL_OUTPUT_DIFFERS");
        }
    }
}
