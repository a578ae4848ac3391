package org.stagecheck.tensor.numeric;

/**
 * bfloat16 emulated bit-exactly (brief, "Reference semantics": bf16 emulated exactly). A bf16 is
 * the top 16 bits of an IEEE f32, so widening is exact and narrowing is a rounding of the low 16
 * bits: round to nearest, ties to even; overflow rounds to infinity as IEEE says; subnormals
 * need no special case because bf16 keeps f32's exponent range.
 */
public final class Bf16 {
    private Bf16() {
    }

    /** The bf16 nearest to {@code f} (ties to even). NaN stays NaN, made quiet, sign kept. */
    public static short fromFloat(float f) {
        int bits = Float.floatToRawIntBits(f);
        if (Float.isNaN(f)) {
            // keep the sign and the payload's top bits; set the quiet bit so that a payload living
            // only in the low 16 bits cannot turn the NaN into an infinity
            return (short) ((bits >>> 16) | 0x0040);
        }
        int lsb = (bits >>> 16) & 1;
        return (short) ((bits + 0x7FFF + lsb) >>> 16);
    }

    /** The exact f32 value of a bf16 bit pattern. */
    public static float toFloat(short bits) {
        return Float.intBitsToFloat((bits & 0xFFFF) << 16);
    }
}
