package org.stagecheck.tensor.numeric;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.stagecheck.proptest.Draw;
import org.stagecheck.proptest.SeededProperty;

/** IEEE binary16 against hand-computed bit patterns, and against the JDK's own conversion. */
class F16Test {
    private static short h(float f) {
        return F16.fromFloat(f);
    }

    @Test
    void handComputedPatterns() {
        assertThat(h(1f)).isEqualTo((short) 0x3C00);
        assertThat(h(-2f)).isEqualTo((short) 0xC000);
        assertThat(h(65504f)).as("largest finite").isEqualTo((short) 0x7BFF);
        assertThat(h(65520f)).as("halfway to 2^16 rounds to even: infinity").isEqualTo((short) 0x7C00);
        assertThat(h(65519.99f)).as("just below the overflow threshold").isEqualTo((short) 0x7BFF);
        assertThat(h(1f + 0x1p-11f)).as("tie: even is 1.0").isEqualTo((short) 0x3C00);
        assertThat(h(1f + 3 * 0x1p-11f)).as("tie above odd rounds up").isEqualTo((short) 0x3C02);
    }

    @Test
    void subnormalsAndUnderflow() {
        assertThat(h(0x1p-24f)).as("smallest subnormal").isEqualTo((short) 0x0001);
        assertThat(h(0x1p-25f)).as("half the smallest subnormal: tie to even zero").isEqualTo((short) 0x0000);
        assertThat(h(0x1.8p-24f)).as("1.5 x smallest: tie to even 2").isEqualTo((short) 0x0002);
        assertThat(h(0x1.000002p-25f)).as("just above half rounds up").isEqualTo((short) 0x0001);
        assertThat(h(0x1p-14f)).as("smallest normal").isEqualTo((short) 0x0400);
        assertThat(h(0x1.ff8p-15f)).as("largest subnormal 0x3ff").isEqualTo((short) 0x03FF);
        assertThat(h(0x1.ffcp-15f)).as("tie above the largest subnormal carries into the smallest normal").isEqualTo((short) 0x0400);
        assertThat(h(-0x1p-30f)).as("-tiny to -0").isEqualTo((short) 0x8000);
        assertThat(F16.toFloat((short) 0x0001)).isEqualTo(0x1p-24f);
    }

    @Test
    void nanAndInfinity() {
        assertThat(h(Float.NaN)).isEqualTo((short) 0x7E00);
        assertThat(h(Float.intBitsToFloat(0xFF800001))).isEqualTo((short) 0xFE00);
        assertThat(h(Float.POSITIVE_INFINITY)).isEqualTo((short) 0x7C00);
        assertThat(h(Float.NEGATIVE_INFINITY)).isEqualTo((short) 0xFC00);
        assertThat(F16.toFloat((short) 0x7C00)).isEqualTo(Float.POSITIVE_INFINITY);
        assertThat(F16.toFloat((short) 0x7E00)).isNaN();
    }

    /** Floats per seed: 1000 seeds x 100 draws (every exponent, edge values, small magnitudes). */
    private static final int FLOATS_PER_SEED = 100;

    @SeededProperty(tries = 1000)
    void agreesWithTheJdkConversionOnEveryNonNanFloat(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < FLOATS_PER_SEED; i++) {
            float f = Draw.anyFloat(r);
            if (!Float.isNaN(f)) {
                assertThat(F16.fromFloat(f)).as("%s (bits %08x)", f, Float.floatToRawIntBits(f)).isEqualTo(Float.floatToFloat16(f));
            }
        }
    }

    /** Every one of the 65536 codes, not a sample. */
    @Test
    void wideningAgreesWithTheJdkOnEveryCode() {
        for (int code = 0; code < 1 << 16; code++) {
            short bits = (short) code;
            float ours = F16.toFloat(bits);
            float jdk = Float.float16ToFloat(bits);
            if (Float.isNaN(jdk)) {
                assertThat(ours).as("code %04x", code).isNaN();
            } else {
                assertThat(Float.floatToRawIntBits(ours)).as("code %04x", code).isEqualTo(Float.floatToRawIntBits(jdk));
            }
        }
    }
}
