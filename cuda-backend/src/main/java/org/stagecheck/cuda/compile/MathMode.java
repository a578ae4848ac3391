package org.stagecheck.cuda.compile;

/**
 * How the generated code computes exp, log, tanh, sigmoid, sin, cos and rsqrt (docs/cuda.md,
 * "Numerics"). Every other operation is the same in both modes and bit-identical to the reference.
 */
public enum MathMode {
    /** Double-precision functions rounded once to f32, as the reference rounds StrictMath's results. */
    PRECISE,
    /** The f32 functions, within the CUDA math library's published ULP bounds. */
    FAST;

    /** The preprocessor flags that select this mode in sc_rt.h. */
    public java.util.List<String> defines() {
        return switch (this) {
            case PRECISE -> java.util.List.of();
            case FAST -> java.util.List.of("-DSC_MATH_FAST");
        };
    }
}
