package org.stagecheck.tensor.numeric;

/**
 * IEEE 754 binary16 emulated bit-exactly (brief, "Reference semantics"). Narrowing rounds to
 * nearest, ties to even, with gradual underflow to binary16 subnormals and overflow to infinity;
 * widening is exact. Every NaN becomes the canonical quiet NaN of its sign ({@code 0x7E00}), so
 * the result never depends on which payload bits a producer happened to set.
 */
public final class F16 {
    private F16() {
    }

    /** The binary16 nearest to {@code f} (ties to even). */
    public static short fromFloat(float f) {
        if (Float.isNaN(f)) {
            return (short) ((Float.floatToRawIntBits(f) >>> 16 & 0x8000) | 0x7E00);
        }
        int bits = Float.floatToRawIntBits(f);
        int sign = (bits >>> 16) & 0x8000;
        int exp = (bits >>> 23) & 0xFF;
        int mant = bits & 0x7FFFFF;
        if (exp == 0xFF) {
            return (short) (sign | 0x7C00); // infinity (NaN handled above)
        }
        int e = exp - 127 + 15; // binary16 biased exponent
        if (e >= 0x1F) {
            return (short) (sign | 0x7C00); // too large even before rounding
        }
        if (e <= 0) {
            // subnormal or zero in binary16: shift the full significand (with its hidden bit)
            if (e < -10) {
                return (short) sign; // below half the smallest subnormal: rounds to zero
            }
            int sig = mant | 0x800000;
            int shift = 14 - e; // 24-bit significand down to the subnormal's 10 bits
            int half = 1 << (shift - 1);
            int rest = sig & ((1 << shift) - 1);
            int q = sig >>> shift;
            if (rest > half || (rest == half && (q & 1) == 1)) {
                q++; // may carry into the smallest normal, which is the right answer
            }
            return (short) (sign | q);
        }
        int q = (e << 10) | (mant >>> 13);
        int rest = mant & 0x1FFF;
        if (rest > 0x1000 || (rest == 0x1000 && (q & 1) == 1)) {
            q++; // a carry out of the mantissa bumps the exponent, up to infinity: IEEE overflow
        }
        return (short) (sign | q);
    }

    /** The exact f32 value of a binary16 bit pattern. */
    public static float toFloat(short bits) {
        int h = bits & 0xFFFF;
        int sign = (h & 0x8000) << 16;
        int exp = (h >>> 10) & 0x1F;
        int mant = h & 0x3FF;
        if (exp == 0x1F) {
            return Float.intBitsToFloat(sign | 0x7F800000 | (mant << 13));
        }
        if (exp == 0) {
            // subnormal: mant * 2^-24, exact in f32
            float v = mant * 0x1p-24f;
            return sign == 0 ? v : -v;
        }
        return Float.intBitsToFloat(sign | ((exp - 15 + 127) << 23) | (mant << 13));
    }
}
