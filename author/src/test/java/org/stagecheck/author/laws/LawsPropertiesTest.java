package org.stagecheck.author.laws;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.proptest.SeededProperty;

/**
 * The bit-exact laws as seeded properties over arbitrary tokens and histories on the tiny model.
 */
class LawsPropertiesTest {
    private final Laws laws = new Laws(ModelSpec.tiny());

    /** Tokens of the tiny model's vocabulary (0..63), {@code min..max} of them. */
    private static int[] tokens(SplittableRandom r, int min, int max) {
        return r.ints(r.nextInt(min, max + 1), 0, 64).toArray();
    }

    /** Prefill/decode consistency for arbitrary token sequences (1-6 tokens) and cache sizes (0-3 rows of slack). */
    @SeededProperty(tries = 8)
    void prefillDecodeConsistencyHoldsForAnyTokens(long seed) {
        SplittableRandom draw = new SplittableRandom(seed);
        int[] t = tokens(draw, 1, 6);
        int slack = draw.nextInt(4);
        LawResult r = laws.prefillDecodeConsistency(t.length + slack, t);
        assertThat(r.bitExact()).as(r.toString()).isTrue();
    }

    /** Batch invariance for arbitrary histories (1-3 rows of 1-5 tokens) of different lengths (rows at different positions). */
    @SeededProperty(tries = 6)
    void batchInvarianceHoldsForAnyHistories(long seed) {
        SplittableRandom draw = new SplittableRandom(seed);
        int[][] h = new int[draw.nextInt(1, 4)][];
        for (int i = 0; i < h.length; i++) {
            h[i] = tokens(draw, 1, 5);
        }
        LawResult r = laws.batchInvariance(5, h);
        assertThat(r.bitExact()).as(r.toString()).isTrue();
    }
}
