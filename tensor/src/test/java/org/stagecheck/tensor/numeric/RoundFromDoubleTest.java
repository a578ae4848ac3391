package org.stagecheck.tensor.numeric;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Double to bf16/f16 rounds once: the nearest value, ties to even, checked against exact arithmetic. */
@Tag("slow")
class RoundFromDoubleTest {
    @Test
    void aDoubleJustAboveABf16MidpointRoundsUpWhereGoingThroughF32WouldTieDown() {
        double d = 1.0 + 0x1p-8 + 0x1p-40; // f32 rounds it to exactly the bf16 midpoint 1 + 2^-8
        assertThat(Bf16.fromFloat((float) d)).isEqualTo((short) 0x3F80); // the double rounding: 1.0
        assertThat(RoundFromDouble.bf16(d)).isEqualTo((short) 0x3F81); // once: 1 + 2^-7
        assertThat(RoundFromDouble.bf16(1.0 + 0x1p-8)).isEqualTo((short) 0x3F80); // a true tie goes to even
    }

    @Test
    void aDoubleJustAboveAnF16MidpointRoundsUp() {
        double d = 1.0 + 0x1p-11 + 0x1p-40;
        assertThat(F16.fromFloat((float) d)).isEqualTo((short) 0x3C00);
        assertThat(RoundFromDouble.f16(d)).isEqualTo((short) 0x3C01);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void bf16AndF16AreTheNearestValuesForRandomDoublesOfEveryMagnitude(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < 20000; i++) {
            double d = switch (i % 3) {
                case 0 -> Double.longBitsToDouble(r.nextLong()); // any double
                case 1 -> (r.nextDouble() * 2 - 1) * Math.scalb(1.0, r.nextInt(-30, 20)); // f16's range
                default -> nearMidpoint(r);
            };
            if (Double.isNaN(d)) {
                continue;
            }
            short b = RoundFromDouble.bf16(d);
            assertThat(isNearest(d, b, true)).as("seed %d: bf16 of %s gave %04x", seed, d, b).isTrue();
            short h = RoundFromDouble.f16(d);
            assertThat(isNearest(d, h, false)).as("seed %d: f16 of %s gave %04x", seed, d, h).isTrue();
        }
    }

    @Test
    void nanStaysNanAndOverflowIsInfinity() {
        assertThat(Float.isNaN(Bf16.toFloat(RoundFromDouble.bf16(Double.NaN)))).isTrue();
        assertThat(F16.toFloat(RoundFromDouble.f16(1e6))).isEqualTo(Float.POSITIVE_INFINITY);
        assertThat(Bf16.toFloat(RoundFromDouble.bf16(-1e300))).isEqualTo(Float.NEGATIVE_INFINITY);
        assertThat(Bf16.toFloat(RoundFromDouble.bf16(1e-300))).isEqualTo(0.0f);
        // (float) 0.3 rounds up to ...9A; cut toward zero and made odd it is ...99
        assertThat(Float.floatToRawIntBits((float) 0.3)).isEqualTo(0x3E99999A);
        assertThat(Float.floatToRawIntBits(RoundFromDouble.toOddFloat(0.3))).isEqualTo(0x3E999999);
        assertThat(RoundFromDouble.toOddFloat(0.5)).isEqualTo(0.5f);
    }

    /** A value within a few f32 ulps of a bf16 or f16 rounding midpoint, where double rounding bites. */
    private static double nearMidpoint(SplittableRandom r) {
        int bits = r.nextInt(1 << 15) | 0x3000; // a positive bf16 in a moderate range
        double mid = Bf16.toFloat((short) bits) + Math.ulp(Bf16.toFloat((short) bits)) * 64.0;
        return mid + (r.nextInt(5) - 2) * Math.ulp((float) mid) * r.nextDouble();
    }

    /** True when {@code bits} is the correctly rounded value of {@code d}, by exact decimal arithmetic. */
    private static boolean isNearest(double d, short bits, boolean bf16) {
        float got = bf16 ? Bf16.toFloat(bits) : F16.toFloat(bits);
        float up = bf16 ? Bf16.toFloat(next(bits, 1)) : F16.toFloat(next(bits, 1));
        float down = bf16 ? Bf16.toFloat(next(bits, -1)) : F16.toFloat(next(bits, -1));
        double max = bf16 ? Bf16.toFloat((short) 0x7F7F) : 65504.0;
        double maxUlp = bf16 ? 0x1p120 : 32.0;
        if (Float.isInfinite(got)) {
            // overflow: at or beyond the midpoint between the largest finite value and the next power
            return Math.abs(d) >= max + maxUlp / 2 && Math.signum(d) == Math.signum(got);
        }
        BigDecimal x = new BigDecimal(d);
        BigDecimal err = x.subtract(new BigDecimal(got)).abs();
        for (float n : new float[] {up, down}) {
            if (Float.isInfinite(n) || Float.isNaN(n)) {
                continue;
            }
            int c = err.compareTo(x.subtract(new BigDecimal(n)).abs());
            if (c > 0 || (c == 0 && (bits & 1) == 1)) {
                return false;
            }
        }
        return true;
    }

    private static short next(short bits, int dir) {
        return (short) ((bits & 0x7FFF) == 0 && dir < 0 ? (bits ^ 0x8000) | 1 : bits + dir);
    }

    /** 8-bit floats too: round-to-odd in f32, then the tensor's own nearest-even narrowing, is the nearest code. */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(value = org.stagecheck.spec.ir.DType.class, names = {"E4M3", "E5M2"})
    void eightBitFloatsThroughAnOddF32AreTheNearestCode(org.stagecheck.spec.ir.DType dtype) {
        org.stagecheck.spec.ir.Shape one = org.stagecheck.spec.ir.Shape.of(1);
        float[] codes = new float[256];
        for (int c = 0; c < 256; c++) {
            codes[c] = org.stagecheck.tensor.Tensor.wrapBits8(dtype, one, new byte[] {(byte) c}).getFloat(0);
        }
        SplittableRandom r = new SplittableRandom(dtype.ordinal());
        for (int i = 0; i < 20000; i++) {
            double d = i % 2 == 0 ? (r.nextDouble() * 2 - 1) * Math.scalb(1.0, r.nextInt(-8, 4))
                    : (codes[r.nextInt(256)] + codes[r.nextInt(256)]) / 2.0 + (r.nextInt(3) - 1) * 0x1p-40; // near midpoints
            if (!Double.isFinite(d)) {
                continue;
            }
            byte got = org.stagecheck.tensor.Tensor.fromFloats(dtype, one, new float[] {RoundFromDouble.toOddFloat(d)}).rawBits8()[0];
            BigDecimal x = new BigDecimal(d);
            BigDecimal best = null;
            for (int c = 0; c < 256; c++) {
                if (Float.isFinite(codes[c])) {
                    BigDecimal e = x.subtract(new BigDecimal(codes[c])).abs();
                    best = best == null || e.compareTo(best) < 0 ? e : best;
                }
            }
            float value = codes[got & 0xFF];
            if (!Float.isFinite(value)) {
                continue; // beyond the largest finite code: the format's own overflow rule, not rounding
            }
            BigDecimal err = x.subtract(new BigDecimal(value)).abs();
            assertThat(err).as("%s of %s gave %02x", dtype, d, got).isEqualByComparingTo(best);
            if (err.compareTo(best) == 0 && d != value) {
                // at a tie the even code wins, unless the other candidate is the only one at that distance
                long atBest = 0;
                for (int c = 0; c < 256; c++) {
                    if (Float.isFinite(codes[c]) && codes[c] != value && x.subtract(new BigDecimal(codes[c])).abs().compareTo(best) == 0
                            && Math.signum(codes[c]) == Math.signum(value)) {
                        atBest++;
                    }
                }
                if (atBest > 0) {
                    assertThat(got & 1).as("%s tie at %s gave %02x", dtype, d, got).isZero();
                }
            }
        }
    }
}
