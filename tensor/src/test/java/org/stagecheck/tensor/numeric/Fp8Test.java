package org.stagecheck.tensor.numeric;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/**
 * The OCP 8-bit floats, exhaustively: every one of the 256 codes each way, and every f32 rounding
 * boundary between adjacent codes, against values computed here from the OFP8 bit layout and a
 * brute-force nearest-code search, not from the implementation.
 */
class Fp8Test {

    /** The value of a code from the OFP8 tables: sign, biased exponent, mantissa; NaN as NaN. */
    private static double spec(Fp8 f, int code) {
        int m = f == Fp8.E4M3 ? 3 : 2;
        int bias = f == Fp8.E4M3 ? 7 : 15;
        int e = (code & 0x7F) >>> m;
        int man = code & ((1 << m) - 1);
        double sign = (code & 0x80) != 0 ? -1 : 1;
        int maxExp = (1 << (7 - m)) - 1;
        if (f == Fp8.E4M3 && e == maxExp && man == 7) {
            return Double.NaN;
        }
        if (f == Fp8.E5M2 && e == maxExp) {
            return man == 0 ? sign * Double.POSITIVE_INFINITY : Double.NaN;
        }
        double mag = e == 0 ? man * Math.pow(2, 1 - bias - m) : (1 + man / (double) (1 << m)) * Math.pow(2, e - bias);
        return sign * mag;
    }

    @ParameterizedTest
    @EnumSource(Fp8.class)
    void everyCodeWidensToItsTableValue(Fp8 f) {
        for (int c = 0; c < 256; c++) {
            double want = spec(f, c);
            float got = f.toFloat((byte) c);
            if (Double.isNaN(want)) {
                assertThat(Float.isNaN(got)).as("code 0x%02x", c).isTrue();
                assertThat(Float.floatToRawIntBits(got) >>> 31).as("sign of NaN code 0x%02x", c).isEqualTo(c >>> 7);
                assertThat(f.isNaN((byte) c)).isTrue();
            } else {
                assertThat((double) got).as("code 0x%02x", c).isEqualTo(want);
                assertThat(Float.floatToRawIntBits(got) >>> 31).as("sign of code 0x%02x", c).isEqualTo(c >>> 7);
                assertThat(f.isNaN((byte) c)).isFalse();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Fp8.class)
    void everyCodeNarrowsBackToItself(Fp8 f) {
        for (int c = 0; c < 256; c++) {
            byte back = f.fromFloat(f.toFloat((byte) c));
            double v = spec(f, c);
            int want = Double.isNaN(v) ? (c & 0x80) | 0x7F
                    : Double.isInfinite(v) ? (c & 0x80) | (f == Fp8.E5M2 ? 0x7B : 0x7E) // saturating mode
                    : c;
            assertThat(back & 0xFF).as("code 0x%02x", c).isEqualTo(want);
        }
    }

    @Test
    void knownValuesOfTheSpecification() {
        assertThat(Fp8.E4M3.toFloat((byte) 0x38)).isEqualTo(1f);
        assertThat(Fp8.E4M3.toFloat((byte) 0x7E)).isEqualTo(448f);
        assertThat(Fp8.E4M3.toFloat((byte) 0x08)).isEqualTo((float) Math.pow(2, -6));
        assertThat(Fp8.E4M3.toFloat((byte) 0x01)).isEqualTo((float) Math.pow(2, -9));
        assertThat(Fp8.E5M2.toFloat((byte) 0x3C)).isEqualTo(1f);
        assertThat(Fp8.E5M2.toFloat((byte) 0x7B)).isEqualTo(57344f);
        assertThat(Fp8.E5M2.toFloat((byte) 0x7C)).isEqualTo(Float.POSITIVE_INFINITY);
        assertThat(Fp8.E5M2.toFloat((byte) 0xFC)).isEqualTo(Float.NEGATIVE_INFINITY);
        assertThat(Fp8.E5M2.toFloat((byte) 0x01)).isEqualTo((float) Math.pow(2, -16));
        assertThat(Fp8.E4M3.maxFinite()).isEqualTo(448f);
        assertThat(Fp8.E5M2.maxFinite()).isEqualTo(57344f);
    }

    /** Finite codes of one sign in increasing magnitude (zero first). */
    private static List<Integer> ladder(Fp8 f, int sign) {
        List<Integer> out = new ArrayList<>();
        for (int c = 0; c < 128; c++) {
            double v = spec(f, c);
            if (!Double.isNaN(v) && !Double.isInfinite(v)) {
                out.add(sign | c);
            }
        }
        return out;
    }

    @ParameterizedTest
    @EnumSource(Fp8.class)
    void everyRoundingBoundaryBetweenAdjacentCodes(Fp8 f) {
        for (int sign : new int[] {0, 0x80}) {
            List<Integer> codes = ladder(f, sign);
            for (int i = 0; i + 1 < codes.size(); i++) {
                int lo = codes.get(i);
                int hi = codes.get(i + 1);
                double a = spec(f, lo);
                double b = spec(f, hi);
                float mid = (float) ((a + b) / 2);
                assertThat((double) mid).as("midpoint of 0x%02x and 0x%02x is exact in f32", lo, hi).isEqualTo((a + b) / 2);
                int even = (lo & 1) == 0 ? lo : hi;
                int tie = f.fromFloat(mid) & 0xFF;
                if (lo == sign) {
                    // between zero and the smallest subnormal the tie goes to zero (even), keeping the sign
                    assertThat(tie).as("tie at %s", mid).isEqualTo(sign);
                } else {
                    assertThat(tie).as("tie at %s between 0x%02x and 0x%02x", mid, lo, hi).isEqualTo(even);
                }
                float below = Math.abs(Math.nextDown(Math.abs(mid))) * (sign == 0 ? 1 : -1);
                float above = Math.nextUp(Math.abs(mid)) * (sign == 0 ? 1 : -1);
                assertThat(f.fromFloat(below) & 0xFF).as("just inside 0x%02x", lo).isEqualTo(lo);
                assertThat(f.fromFloat(above) & 0xFF).as("just inside 0x%02x", hi).isEqualTo(hi);
                // the codes themselves and the f32 values next to them stay put
                assertThat(f.fromFloat((float) b) & 0xFF).isEqualTo(hi);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Fp8.class)
    void overflowSaturatesAndNanKeepsItsSign(Fp8 f) {
        int max = f == Fp8.E4M3 ? 0x7E : 0x7B;
        float top = f.maxFinite();
        // the midpoint between the largest finite value and the next binade step
        float ulp = f == Fp8.E4M3 ? 32f : 8192f;
        float tie = top + ulp / 2;
        assertThat(f.fromFloat(tie) & 0xFF).as("tie above the largest finite").isEqualTo(max);
        assertThat(f.fromFloat(Math.nextUp(tie)) & 0xFF).as("past the tie: saturates").isEqualTo(max);
        assertThat(f.fromFloat(1e30f) & 0xFF).isEqualTo(max);
        assertThat(f.fromFloat(Float.MAX_VALUE) & 0xFF).isEqualTo(max);
        assertThat(f.fromFloat(Float.POSITIVE_INFINITY) & 0xFF).isEqualTo(max);
        assertThat(f.fromFloat(Float.NEGATIVE_INFINITY) & 0xFF).isEqualTo(0x80 | max);
        assertThat(f.fromFloat(-1e30f) & 0xFF).isEqualTo(0x80 | max);
        assertThat(f.fromFloat(Float.NaN) & 0xFF).isEqualTo(0x7F);
        assertThat(f.fromFloat(Float.intBitsToFloat(0xFFC00001)) & 0xFF).isEqualTo(0xFF);
        assertThat(f.fromFloat(-0f) & 0xFF).isEqualTo(0x80);
        assertThat(f.fromFloat(Float.MIN_VALUE) & 0xFF).isEqualTo(0);
        assertThat(f.fromFloat(-Float.MIN_VALUE) & 0xFF).isEqualTo(0x80);
    }

    /** Brute force: the nearest code by value, ties to the even code, saturating; independent of the implementation. */
    private static int nearest(Fp8 f, float x) {
        int sign = (Float.floatToRawIntBits(x) >>> 24) & 0x80;
        if (Float.isNaN(x)) {
            return sign | 0x7F;
        }
        double ax = Math.abs((double) x);
        if (ax >= f.maxFinite()) {
            return sign | (f == Fp8.E4M3 ? 0x7E : 0x7B); // the saturating conversion mode
        }
        int best = -1;
        double bestD = Double.POSITIVE_INFINITY;
        for (int c : ladder(f, 0)) {
            double d = Math.abs(spec(f, c) - ax);
            if (d < bestD || (d == bestD && (c & 1) == 0)) {
                best = c;
                bestD = d;
            }
        }
        return sign | best;
    }

    @ParameterizedTest
    @EnumSource(Fp8.class)
    void randomFloatsNarrowToTheNearestCode(Fp8 f) {
        SplittableRandom rnd = new SplittableRandom(8);
        for (int i = 0; i < 200_000; i++) {
            // exponents concentrated where the format lives, plus any f32 bit pattern
            float x = i % 4 == 0 ? Float.intBitsToFloat(rnd.nextInt())
                    : (float) ((rnd.nextBoolean() ? 1 : -1) * rnd.nextDouble() * Math.pow(2, rnd.nextInt(-20, 18)));
            assertThat(f.fromFloat(x) & 0xFF).as("%s (bits %08x)", x, Float.floatToRawIntBits(x)).isEqualTo(nearest(f, x));
        }
    }
}
