package org.stagecheck.interp.eval;

/**
 * The working type of a column of a compiled expression ({@link CompiledExpr}), one value per
 * output element: FLOAT is {@link #F} ({@code float[]}, f32) in the reference mode and {@link #D}
 * ({@code double[]}) in the float64 mode; INT is {@link #I} ({@code int[]}); BOOL is {@link #B}
 * ({@code boolean[]}).
 */
enum ColType {
    F, D, I, B;

    /** The value type's name in diagnostics (docs/semantics.md, "Generic"). */
    String typeName() {
        return switch (this) {
            case F, D -> "FLOAT";
            case I -> "INT";
            case B -> "BOOL";
        };
    }

    /** A new column of this type with {@code n} elements. */
    Object newColumn(int n) {
        return switch (this) {
            case F -> new float[n];
            case D -> new double[n];
            case I -> new int[n];
            case B -> new boolean[n];
        };
    }

    /** The element count of a column of this type. */
    int length(Object column) {
        return switch (this) {
            case F -> ((float[]) column).length;
            case D -> ((double[]) column).length;
            case I -> ((int[]) column).length;
            case B -> ((boolean[]) column).length;
        };
    }
}
