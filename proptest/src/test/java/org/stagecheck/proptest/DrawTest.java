package org.stagecheck.proptest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Draws stay in their ranges, reach the ends of them, and meet the edge values often. */
class DrawTest {
    @Test
    void rangesUpToTheExtremesAreHonouredAndReachedAtBothEnds() {
        SplittableRandom r = new SplittableRandom(1);
        Set<Integer> small = new HashSet<>();
        for (int i = 0; i < 2000; i++) {
            assertThat(Draw.between(r, 1L, Long.MAX_VALUE)).isPositive();
            assertThat(Draw.between(r, Integer.MAX_VALUE - 1, Integer.MAX_VALUE)).isGreaterThanOrEqualTo(Integer.MAX_VALUE - 1);
            assertThat(Draw.between(r, Long.MIN_VALUE, Long.MIN_VALUE + 1)).isLessThanOrEqualTo(Long.MIN_VALUE + 1);
            small.add(Draw.between(r, -1, 2));
        }
        assertThat(small).containsExactlyInAnyOrder(-1, 0, 1, 2);
        assertThat(Draw.between(r, 5, 5)).isEqualTo(5);
    }

    @Test
    void edgeValuesAreDrawnOften() {
        SplittableRandom r = new SplittableRandom(2);
        Set<Long> longs = new HashSet<>();
        Set<Integer> floatBits = new HashSet<>();
        for (int i = 0; i < 4000; i++) {
            longs.add(Draw.anyLong(r));
            floatBits.add(Float.floatToRawIntBits(Draw.anyFloat(r)));
        }
        assertThat(longs).contains(0L, -1L, Long.MIN_VALUE, Long.MAX_VALUE);
        assertThat(floatBits).contains(0, 0x80000000, 0x7F800000, 0xFF800000, Float.floatToRawIntBits(Float.NaN), 1);
    }

    @Test
    void stringsAndListsHaveLengthsInTheirRangeFromTheirAlphabet() {
        SplittableRandom r = new SplittableRandom(3);
        for (int i = 0; i < 500; i++) {
            assertThat(Draw.string(r, "ab", 2, 4)).hasSizeBetween(2, 4).matches("[ab]*");
            assertThat(Draw.string(r, 'x', 'z', 0, 3)).hasSizeBetween(0, 3).matches("[xyz]*");
            List<Integer> l = Draw.list(r, 1, 3, () -> 7);
            assertThat(l).hasSizeBetween(1, 3).containsOnly(7);
        }
    }
}
