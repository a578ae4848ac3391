package org.stagecheck.tensor.compare;

import org.stagecheck.spec.ir.DType;
import org.stagecheck.tensor.numeric.Rounding;

/**
 * The numeric facts about a dtype that comparison and error bounds need, kept in one table so a
 * new dtype is added in one place: the unit roundoff, the smallest subnormal, the default
 * {@code allclose} tolerances (docs/golden.md, "Tolerance policies") and the map from a value to
 * an integer whose difference counts units in the last place.
 *
 * @param unitRoundoff   u = 2^-p for a p-bit significand: |round(x) - x| &lt;= u |x| for normal x (0 for integers)
 * @param minSubnormal   the smallest positive value (the absolute error floor of underflow); 0 for integers
 * @param defaultRtol    allclose relative tolerance when none is given (torch.testing.assert_close's)
 * @param defaultAtol    allclose absolute tolerance when none is given (torch.testing.assert_close's)
 */
public record FloatFormat(DType dtype, double unitRoundoff, double minSubnormal, double defaultRtol, double defaultAtol) {

    /** The format of {@code dtype}. */
    public static FloatFormat of(DType dtype) {
        return switch (dtype) {
            case F32 -> new FloatFormat(dtype, 0x1p-24, 0x1p-149, 1.3e-6, 1e-5);
            case BF16 -> new FloatFormat(dtype, 0x1p-8, 0x1p-133, 1.6e-2, 1e-5);
            case F16 -> new FloatFormat(dtype, 0x1p-11, 0x1p-24, 1e-3, 1e-5);
            case I32 -> new FloatFormat(dtype, 0, 0, 0, 0);
            // torch has no defaults for the 8-bit floats: two units of roundoff, one smallest subnormal
            case E4M3 -> new FloatFormat(dtype, 0x1p-4, 0x1p-9, 0x1p-3, 0x1p-9);
            case E5M2 -> new FloatFormat(dtype, 0x1p-3, 0x1p-16, 0x1p-2, 0x1p-16);
        };
    }

    public boolean isInteger() {
        return dtype.isInteger();
    }

    /**
     * An integer that increases by one from each representable value of this dtype to the next,
     * with -0 and +0 both at 0, so the ULP distance of two values is the difference of their
     * ordinals. {@code v} is first rounded to the dtype (exact for a value of the dtype).
     * Not meaningful for NaN.
     */
    public long ordinal(double v) {
        if (dtype.isInteger()) {
            return (long) v;
        }
        return switch (dtype) {
            case F32 -> ordinalF32(Float.floatToRawIntBits((float) v));
            case BF16, F16 -> ordinal16(Rounding.narrow16(dtype, (float) v));
            case E4M3, E5M2 -> ordinal8(Rounding.narrow8(dtype, (float) v));
            case I32 -> (long) v;
        };
    }

    /** {@link #ordinal(double)} of an f32 given by its bits. */
    public static long ordinalF32(int bits) {
        return bits >= 0 ? bits : (long) Integer.MIN_VALUE - bits;
    }

    /** {@link #ordinal(double)} of a bf16 or f16 given by its 16-bit pattern. */
    public static long ordinal16(short bits) {
        int b = bits & 0xFFFF;
        return b >= 0x8000 ? 0x8000 - b : b;
    }

    /** {@link #ordinal(double)} of an 8-bit float given by its code. */
    public static long ordinal8(byte bits) {
        int b = bits & 0xFF;
        return b >= 0x80 ? 0x80 - b : b;
    }

    /** The spacing of this dtype's values at magnitude |v| (the ULP), for normal and subnormal v. */
    public double ulp(double v) {
        if (dtype.isInteger()) {
            return 1;
        }
        double a = Math.abs(v);
        if (!Double.isFinite(a)) {
            return Double.POSITIVE_INFINITY;
        }
        double smallestNormal = minSubnormal / (2 * unitRoundoff);
        if (a < smallestNormal) {
            return minSubnormal;
        }
        return Math.scalb(2 * unitRoundoff, Math.getExponent(a));
    }
}
