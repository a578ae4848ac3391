package org.stagecheck.tensor.numeric;

/**
 * The two OCP 8-bit floating point formats (OCP 8-bit Floating Point Specification, OFP8),
 * emulated bit-exactly: {@link #E4M3} (1 sign, 4 exponent bits with bias 7, 3 mantissa bits; no
 * infinities; NaN only as {@code S.1111.111}; largest finite 448) and {@link #E5M2} (1 sign, 5
 * exponent bits with bias 15, 2 mantissa bits; IEEE-like infinities {@code S.11111.00} and NaNs
 * {@code S.11111.xx}; largest finite 57344). Both have subnormals.
 *
 * <p>Narrowing from f32 rounds to nearest, ties to even, in the OFP8 <b>saturating</b> conversion
 * mode: a finite value whose rounded magnitude exceeds the largest finite value, and an infinity,
 * become the largest finite value of its sign (this is also what the GPU's conversion instruction
 * {@code cvt.rn.satfinite} does). NaN becomes the canonical NaN of its sign, {@code S.1111.111}
 * for E4M3 and {@code S.11111.11} for E5M2 (payloads cannot be kept in 8 bits). Widening is
 * exact; a NaN code widens to the canonical quiet f32 NaN of its sign.
 */
public enum Fp8 {
    /** OFP8 E4M3 (often called e4m3fn). */
    E4M3(3, 7, false, 448f),
    /** OFP8 E5M2. */
    E5M2(2, 15, true, 57344f);

    private final int mantissaBits;
    private final int bias;
    private final boolean hasInfinity;
    private final float maxFinite;
    private final float[] decoded = new float[256];

    Fp8(int mantissaBits, int bias, boolean hasInfinity, float maxFinite) {
        this.mantissaBits = mantissaBits;
        this.bias = bias;
        this.hasInfinity = hasInfinity;
        this.maxFinite = maxFinite;
        for (int c = 0; c < 256; c++) {
            decoded[c] = decode(c);
        }
    }

    /** The largest finite value. */
    public float maxFinite() {
        return maxFinite;
    }

    /** The unit roundoff: half the gap between 1 and the next value up, 2^-(mantissa bits + 1). */
    public double unitRoundoff() {
        return Math.scalb(1.0, -(mantissaBits + 1));
    }

    /** The number of explicit mantissa bits (3 for E4M3, 2 for E5M2). */
    public int mantissaBits() {
        return mantissaBits;
    }

    /** The exact f32 value of code {@code bits} (only its low 8 bits are read). */
    public float toFloat(byte bits) {
        return decoded[bits & 0xFF];
    }

    /** Whether code {@code bits} is a NaN. */
    public boolean isNaN(byte bits) {
        int m = (1 << mantissaBits) - 1;
        int e = (bits & 0x7F) >>> mantissaBits;
        int maxExp = (1 << (7 - mantissaBits)) - 1;
        if (e != maxExp) {
            return false;
        }
        return hasInfinity ? (bits & m) != 0 : (bits & m) == m;
    }

    private float decode(int code) {
        int sign = code & 0x80;
        int e = (code & 0x7F) >>> mantissaBits;
        int m = code & ((1 << mantissaBits) - 1);
        int maxExp = (1 << (7 - mantissaBits)) - 1;
        float sgn = sign != 0 ? -1f : 1f;
        if (e == maxExp) {
            if (hasInfinity) {
                if (m == 0) {
                    return sgn * Float.POSITIVE_INFINITY;
                }
                return canonicalNaN(sign);
            }
            if (m == (1 << mantissaBits) - 1) {
                return canonicalNaN(sign);
            }
        }
        if (e == 0) {
            return sgn * (float) Math.scalb((double) m, 1 - bias - mantissaBits);
        }
        return sgn * (float) Math.scalb((double) ((1 << mantissaBits) | m), e - bias - mantissaBits);
    }

    private static float canonicalNaN(int sign8) {
        return Float.intBitsToFloat((sign8 << 24) | 0x7FC00000);
    }

    /** The code nearest to {@code f}: ties to even, saturating, NaN to the canonical NaN of its sign. */
    public byte fromFloat(float f) {
        int sign = (Float.floatToRawIntBits(f) >>> 24) & 0x80;
        if (Float.isNaN(f)) {
            return (byte) (sign | 0x7F);
        }
        double a = Math.abs((double) f);
        if (a == 0) {
            return (byte) sign;
        }
        int minNormalExp = 1 - bias;
        int e = Math.max(Math.getExponent(a), minNormalExp);
        // the quantum at a's binade (or the subnormal quantum); a / q is exact in double
        double q = Math.scalb(1.0, e - mantissaBits);
        double r = Math.rint(a / q) * q;
        if (r > maxFinite || Double.isInfinite(a)) {
            r = maxFinite;
        }
        int re = Math.getExponent(r);
        int code;
        if (r == 0) {
            code = 0;
        } else if (re < minNormalExp) {
            code = (int) Math.scalb(r, mantissaBits - minNormalExp);
        } else {
            int mant = (int) Math.scalb(r, mantissaBits - re) - (1 << mantissaBits);
            code = ((re + bias) << mantissaBits) | mant;
        }
        return (byte) (sign | code);
    }
}
