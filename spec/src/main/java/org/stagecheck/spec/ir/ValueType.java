package org.stagecheck.spec.ir;

/**
 * The type of a {@link Expr} value: every floating dtype computes as {@code FLOAT} (f32, or
 * f64 in the float64 evaluation mode), i32 as {@code INT}, and comparisons give {@code BOOL}.
 */
public enum ValueType {
    FLOAT, INT, BOOL;

    public static ValueType of(DType dtype) {
        return dtype.isFloating() ? FLOAT : INT;
    }
}
