package org.stagecheck.tensor.numeric;

import org.stagecheck.spec.ir.DType;

/**
 * The one rounding rule of the reference semantics (docs/semantics.md, "Dtypes"): a value computed
 * in f32 is stored in a dtype by round-to-nearest-even (bf16, f16, and the 8-bit floats e4m3 and
 * e5m2 in the OFP8 saturating mode), unchanged (f32), or for i32 by truncation toward zero,
 * saturating, NaN to 0 (Java's narrowing conversion).
 */
public final class Rounding {
    private Rounding() {
    }

    /** {@code f} rounded to {@code dtype} and widened back to f32: the value a store keeps. */
    public static float roundTo(DType dtype, float f) {
        return switch (dtype) {
            case F32 -> f;
            case BF16 -> Bf16.toFloat(Bf16.fromFloat(f));
            case F16 -> F16.toFloat(F16.fromFloat(f));
            case E4M3 -> Fp8.E4M3.toFloat(Fp8.E4M3.fromFloat(f));
            case E5M2 -> Fp8.E5M2.toFloat(Fp8.E5M2.fromFloat(f));
            case I32 -> (float) (int) f;
        };
    }

    /** The f32 value of a stored 16-bit pattern of {@code dtype} (BF16 or F16). */
    public static float widen16(DType dtype, short bits) {
        return switch (dtype) {
            case BF16 -> Bf16.toFloat(bits);
            case F16 -> F16.toFloat(bits);
            case F32, I32, E4M3, E5M2 -> throw new IllegalArgumentException(dtype + " is not a 16-bit float");
        };
    }

    /** The 16-bit pattern of {@code f} in {@code dtype} (BF16 or F16), ties to even. */
    public static short narrow16(DType dtype, float f) {
        return switch (dtype) {
            case BF16 -> Bf16.fromFloat(f);
            case F16 -> F16.fromFloat(f);
            case F32, I32, E4M3, E5M2 -> throw new IllegalArgumentException(dtype + " is not a 16-bit float");
        };
    }

    /** The 8-bit format of {@code dtype} (E4M3 or E5M2). */
    public static Fp8 fp8(DType dtype) {
        return switch (dtype) {
            case E4M3 -> Fp8.E4M3;
            case E5M2 -> Fp8.E5M2;
            case F32, BF16, F16, I32 -> throw new IllegalArgumentException(dtype + " is not an 8-bit float");
        };
    }

    /** The f32 value of a stored 8-bit code of {@code dtype} (E4M3 or E5M2). */
    public static float widen8(DType dtype, byte bits) {
        return fp8(dtype).toFloat(bits);
    }

    /** The 8-bit code of {@code f} in {@code dtype} (E4M3 or E5M2), ties to even, saturating. */
    public static byte narrow8(DType dtype, float f) {
        return fp8(dtype).fromFloat(f);
    }
}
