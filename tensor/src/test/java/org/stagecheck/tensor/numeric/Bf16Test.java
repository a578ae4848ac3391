package org.stagecheck.tensor.numeric;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.stagecheck.proptest.Draw;
import org.stagecheck.proptest.SeededProperty;

/** bf16 against hand-computed bit patterns: ties to even, NaN, infinities, subnormals. */
class Bf16Test {
    private static short bf(int bits) {
        return Bf16.fromFloat(Float.intBitsToFloat(bits));
    }

    @Test
    void roundsToNearestAndTiesToEven() {
        assertThat(bf(0x3F808000)).as("1 + 2^-8: tie, even is 1.0").isEqualTo((short) 0x3F80);
        assertThat(bf(0x3F818000)).as("tie above an odd mantissa rounds up").isEqualTo((short) 0x3F82);
        assertThat(bf(0x3F808001)).as("just above the tie rounds up").isEqualTo((short) 0x3F81);
        assertThat(bf(0x3F807FFF)).as("just below the tie rounds down").isEqualTo((short) 0x3F80);
        assertThat(bf(0xBF808001)).as("sign is kept").isEqualTo((short) 0xBF81);
    }

    @Test
    void overflowGoesToInfinityAndInfinitiesStay() {
        assertThat(bf(0x7F7FFFFF)).as("max f32 rounds up to +inf").isEqualTo((short) 0x7F80);
        assertThat(bf(0x7F800000)).isEqualTo((short) 0x7F80);
        assertThat(bf(0xFF800000)).isEqualTo((short) 0xFF80);
    }

    @Test
    void nanStaysAQuietNanEvenWhenItsPayloadIsOnlyInTheLowBits() {
        assertThat(bf(0x7F800001)).isEqualTo((short) 0x7FC0);
        assertThat(bf(0xFFC00000)).isEqualTo((short) 0xFFC0);
        assertThat(Float.isNaN(Bf16.toFloat(bf(0x7F800001)))).isTrue();
    }

    @Test
    void subnormalsRoundLikeNormals() {
        assertThat(bf(0x00008000)).as("smallest tie rounds to even zero").isEqualTo((short) 0x0000);
        assertThat(bf(0x00018000)).as("tie above an odd subnormal rounds up").isEqualTo((short) 0x0002);
        assertThat(bf(0x80000001)).as("-tiny rounds to -0").isEqualTo((short) 0x8000);
    }

    /** Every one of the 65536 codes, not a sample. */
    @Test
    void wideningIsExactAndNarrowingItBackIsTheIdentityOnEveryCode() {
        for (int code = 0; code < 1 << 16; code++) {
            short bits = (short) code;
            float f = Bf16.toFloat(bits);
            if (!Float.isNaN(f)) {
                assertThat(Bf16.fromFloat(f)).as("code %04x", code).isEqualTo(bits);
            }
        }
    }

    /** Floats per seed: 1000 seeds x 100 draws (every exponent, edge values, small magnitudes). */
    private static final int FLOATS_PER_SEED = 100;

    @SeededProperty(tries = 1000)
    void theResultIsANearestBf16(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < FLOATS_PER_SEED; i++) {
            float f = Draw.anyFloat(r);
            if (!Float.isNaN(f) && !Float.isInfinite(f)) {
                assertNearest(f);
            }
        }
    }

    private static void assertNearest(float f) {
        float r = Bf16.toFloat(Bf16.fromFloat(f));
        if (Float.isInfinite(r)) {
            assertThat(Math.abs(f)).as("%s", f).isGreaterThanOrEqualTo(Float.intBitsToFloat(0x7F7F8000));
            return;
        }
        // the neighbour on the other side of f is at least as far away
        int rb = Float.floatToRawIntBits(r) >>> 16;
        float up = Bf16.toFloat((short) (rb + 1));
        float down = Bf16.toFloat((short) (rb - 1));
        double err = Math.abs((double) f - r);
        if (!Float.isInfinite(up) && !Float.isNaN(up)) {
            assertThat(err).as("%s (bits %08x) against the code above", f, Float.floatToRawIntBits(f))
                    .isLessThanOrEqualTo(Math.abs((double) f - up));
        }
        if (!Float.isNaN(down) && rb != 0 && rb != 0x8000) {
            assertThat(err).as("%s (bits %08x) against the code below", f, Float.floatToRawIntBits(f))
                    .isLessThanOrEqualTo(Math.abs((double) f - down));
        }
    }
}
