package org.stagecheck.interp.accuracy;

import java.util.Arrays;
import org.stagecheck.spec.ir.DType;

/**
 * The four narrow floating formats decoded from their definitions (brief, "Dtypes"; docs/semantics.md,
 * "Dtypes and rounding"), code by code, and rounding to them done as a search over those decoded
 * values: the nearest, a tie going to the code with an even last bit. Written apart from the
 * project's codecs and from {@link IndependentOracleTest#round}, as a second opinion.
 */
enum NarrowFormats {
    BF16(DType.BF16, 16, 8, 7, true),
    F16(DType.F16, 16, 5, 10, true),
    E4M3(DType.E4M3, 8, 4, 3, false),
    E5M2(DType.E5M2, 8, 5, 2, true);

    final DType dtype;
    final int bits;
    final int exponentBits;
    final int mantissaBits;
    /** IEEE-style infinities and NaNs in the top exponent (bf16, f16, e5m2); e4m3 has only S.1111.111 as NaN. */
    final boolean ieeeSpecials;
    /** The finite non-negative values, ascending, and the code of each. */
    private final double[] values;
    private final int[] codes;

    NarrowFormats(DType dtype, int bits, int exponentBits, int mantissaBits, boolean ieeeSpecials) {
        this.dtype = dtype;
        this.bits = bits;
        this.exponentBits = exponentBits;
        this.mantissaBits = mantissaBits;
        this.ieeeSpecials = ieeeSpecials;
        int half = 1 << (bits - 1);
        double[] v = new double[half];
        int[] c = new int[half];
        int n = 0;
        for (int code = 0; code < half; code++) {
            double d = decode(code);
            if (Double.isFinite(d)) {
                v[n] = d;
                c[n++] = code;
            }
        }
        this.values = Arrays.copyOf(v, n);
        this.codes = Arrays.copyOf(c, n);
    }

    int bias() {
        return (1 << (exponentBits - 1)) - 1;
    }

    /** The value of {@code code} by the formula: (-1)^s 2^(e-bias) (1 + m/2^M), subnormal for e = 0. */
    double decode(int code) {
        boolean negative = (code >> (bits - 1) & 1) == 1;
        int e = code >> mantissaBits & ((1 << exponentBits) - 1);
        int m = code & ((1 << mantissaBits) - 1);
        int top = (1 << exponentBits) - 1;
        double magnitude;
        if (ieeeSpecials && e == top) {
            magnitude = m == 0 ? Double.POSITIVE_INFINITY : Double.NaN;
        } else if (!ieeeSpecials && e == top && m == (1 << mantissaBits) - 1) {
            magnitude = Double.NaN;
        } else if (e == 0) {
            magnitude = m * Math.pow(2, 1 - bias() - mantissaBits);
        } else {
            magnitude = (1 + m / Math.pow(2, mantissaBits)) * Math.pow(2, e - bias());
        }
        return negative ? -magnitude : magnitude;
    }

    double maxFinite() {
        return values[values.length - 1];
    }

    /**
     * {@code x} rounded to this format, nearest with ties to the even code. Past the largest
     * finite value: IEEE formats go to ±Inf when {@code x} reaches the midpoint to the next power
     * step (a tie, as the largest code is odd), e4m3 and e5m2 saturate (the OFP8 satfinite mode).
     */
    double round(double x) {
        if (Double.isNaN(x)) {
            return Double.NaN;
        }
        double a = Math.abs(x);
        double r;
        double max = maxFinite();
        boolean saturating = this == E4M3 || this == E5M2;
        if (a >= max) {
            double overflowAt = max + (max - values[values.length - 2]) / 2;
            r = saturating || a < overflowAt ? max : Double.POSITIVE_INFINITY;
        } else {
            int i = Arrays.binarySearch(values, a);
            if (i >= 0) {
                r = values[i];
            } else {
                int hi = -i - 1;
                int lo = hi - 1;
                double dLo = a - values[lo];
                double dHi = values[hi] - a;
                r = dLo < dHi ? values[lo] : dHi < dLo ? values[hi] : (codes[lo] & 1) == 0 ? values[lo] : values[hi];
            }
        }
        return Math.copySign(r, x);
    }

    /** The midpoints between neighbouring non-negative finite values, each also nudged one f32 step down and up, with their negatives. */
    float[] midpointProbes(int stride) {
        float[] out = new float[6 * ((values.length - 1 + stride - 1) / stride) + 12];
        int n = 0;
        for (int i = 0; i + 1 < values.length; i += stride) {
            float mid = (float) ((values[i] + values[i + 1]) / 2);
            for (float f : new float[] {mid, Math.nextDown(mid), Math.nextUp(mid)}) {
                out[n++] = f;
                out[n++] = -f;
            }
        }
        double max = maxFinite();
        double step = max - values[values.length - 2];
        for (double d : new double[] {max, max + step / 2, max + step / 4, max + step, 1e30, Double.POSITIVE_INFINITY}) {
            out[n++] = (float) d;
            out[n++] = (float) -d;
        }
        return Arrays.copyOf(out, n);
    }
}
