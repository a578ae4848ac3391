package org.stagecheck.tensor.numeric;

import org.stagecheck.spec.ir.DType;

/**
 * The one rounding rule of the reference semantics (docs/semantics.md, "Dtypes"): a value computed
 * in f32 is stored in a dtype by round-to-nearest-even (bf16, f16), unchanged (f32), or for i32
 * by truncation toward zero, saturating, NaN to 0 (Java's narrowing conversion).
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
            case I32 -> (float) (int) f;
        };
    }

    /** The f32 value of a stored 16-bit pattern of {@code dtype} (BF16 or F16). */
    public static float widen16(DType dtype, short bits) {
        return switch (dtype) {
            case BF16 -> Bf16.toFloat(bits);
            case F16 -> F16.toFloat(bits);
            case F32, I32 -> throw new IllegalArgumentException(dtype + " is not a 16-bit float");
        };
    }

    /** The 16-bit pattern of {@code f} in {@code dtype} (BF16 or F16), ties to even. */
    public static short narrow16(DType dtype, float f) {
        return switch (dtype) {
            case BF16 -> Bf16.fromFloat(f);
            case F16 -> F16.fromFloat(f);
            case F32, I32 -> throw new IllegalArgumentException(dtype + " is not a 16-bit float");
        };
    }
}
