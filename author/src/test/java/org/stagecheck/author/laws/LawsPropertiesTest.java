package org.stagecheck.author.laws;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.stagecheck.author.ModelSpec;

/**
 * The bit-exact laws as jqwik properties over arbitrary tokens and histories on the tiny model
 * (a class of its own: surefire reports one engine per class name).
 */
class LawsPropertiesTest {
    private final Laws laws = new Laws(ModelSpec.tiny());

    /** jqwik: prefill/decode consistency for arbitrary token sequences and cache sizes. */
    @Property(tries = 8)
    void prefillDecodeConsistencyHoldsForAnyTokens(@ForAll @Size(min = 1, max = 6) List<@IntRange(min = 0, max = 63) Integer> tokens,
                                                   @ForAll @IntRange(min = 0, max = 3) int slack) {
        int[] t = tokens.stream().mapToInt(Integer::intValue).toArray();
        LawResult r = laws.prefillDecodeConsistency(t.length + slack, t);
        assertThat(r.bitExact()).as(r.toString()).isTrue();
    }

    /** jqwik: batch invariance for arbitrary histories of different lengths (rows at different positions). */
    @Property(tries = 6)
    void batchInvarianceHoldsForAnyHistories(@ForAll @Size(min = 1, max = 3) List<@Size(min = 1, max = 5) List<@IntRange(min = 0, max = 63) Integer>> histories) {
        int[][] h = histories.stream().map(l -> l.stream().mapToInt(Integer::intValue).toArray()).toArray(int[][]::new);
        LawResult r = laws.batchInvariance(5, h);
        assertThat(r.bitExact()).as(r.toString()).isTrue();
    }
}
