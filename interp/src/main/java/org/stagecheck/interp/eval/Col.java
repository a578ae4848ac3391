package org.stagecheck.interp.eval;

/**
 * A column of values of one {@link org.stagecheck.spec.ir.ValueType}, one per output element: the
 * working form of a {@code Generic} expression node. FLOAT is {@link F} (f32) in the reference
 * mode and {@link D} (double) in the float64 mode.
 */
sealed interface Col {
    record F(float[] v) implements Col {}

    record D(double[] v) implements Col {}

    record I(int[] v) implements Col {}

    record B(boolean[] v) implements Col {}

    default String typeName() {
        return switch (this) {
            case F f -> "FLOAT";
            case D d -> "FLOAT";
            case I i -> "INT";
            case B b -> "BOOL";
        };
    }
}
