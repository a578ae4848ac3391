package org.stagecheck.tensor.numeric;

/**
 * Rounding a double straight to a narrow float format once, round-to-nearest-even, without the
 * double rounding of going through an f32 rounded to nearest first (docs/author.md, "Weights").
 *
 * <p>The method is round-to-odd: the double is first cut to f32 toward zero, and when that lost
 * anything the f32's last bit is set ("sticky"). An f32 keeps at least two more significand bits
 * than bf16, f16 or an 8-bit float at every magnitude those formats reach, so rounding that odd
 * f32 to nearest-even gives exactly the value the double rounds to (Boldo and Melquiond,
 * "Emulation of FMA and correctly rounded sums: proved algorithms using rounding to odd"). Any
 * narrowing that rounds f32 to nearest-even, for example {@code Tensor.fromFloats}, can therefore
 * take {@link #toOddFloat} and round once overall.
 */
public final class RoundFromDouble {
    private RoundFromDouble() {
    }

    /** {@code d} rounded to f32 toward zero, with the last bit set when that was inexact. NaN and infinities pass. */
    public static float toOddFloat(double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            return (float) d;
        }
        float f = (float) d; // nearest-even
        if ((double) f == d) {
            return f;
        }
        if (Math.abs((double) f) > Math.abs(d)) {
            f = Math.nextAfter(f, 0.0); // step back toward zero: now the truncation (also from an overflow to infinity)
        }
        return Float.intBitsToFloat(Float.floatToRawIntBits(f) | 1);
    }

    /** The bf16 bit pattern nearest to {@code d} (ties to even), rounded once. */
    public static short bf16(double d) {
        return Bf16.fromFloat(toOddFloat(d));
    }

    /** The binary16 bit pattern nearest to {@code d} (ties to even), rounded once. */
    public static short f16(double d) {
        return F16.fromFloat(toOddFloat(d));
    }
}
