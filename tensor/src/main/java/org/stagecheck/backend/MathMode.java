package org.stagecheck.backend;

import org.stagecheck.spec.ir.Fn;

/**
 * The floating-point behaviour a derived bound allows a backend (docs/golden.md, "Per-function
 * budgets"): how far each function of the expression algebra may be from the correctly rounded
 * result, and how small values may flush. The bound always also covers the reference
 * interpreter (transcendentals through StrictMath rounded once to f32: at most 1 ULP), so a
 * budget is the larger of the reference's and the backend's.
 *
 * <p>Figures for CUDA are the single-precision maximum errors published in the CUDA C++
 * Programming Guide's appendix "Mathematical Functions" (full range).
 */
public enum MathMode {
    /** IEEE-conforming division and square root, the CUDA math library's default functions. */
    PRECISE,
    /** {@code -use_fast_math}: intrinsics ({@code __expf}, {@code __logf}, {@code __sinf}, ...), approximate division and square root, subnormals flushed to zero. */
    FAST;

    /**
     * The mode every command and {@code RecordOptions.defaults()} use when none is given
     * ({@code golden record --math}, {@code diff --math}): {@link #FAST}, because its budgets are
     * the wider ones. A tolerance derived under them passes a backend built with
     * {@code -use_fast_math} for what the CUDA guide documents of its intrinsics, and still passes
     * a precise backend; the narrower {@link #PRECISE} budgets would fail a fast-math backend
     * for documented behaviour. Choose {@code precise} to hold a backend to the math library's
     * default functions.
     */
    public static final MathMode DEFAULT = FAST;

    /**
     * A function's error budget: {@code (ulpBase + ulpPerAbsArg * |x|)} ULPs of the f32 result plus
     * {@code absolute}. A function with budget {@link #IEEE} is correctly rounded (half an ULP, the
     * unit roundoff of the basic rounding term).
     */
    public record Budget(double ulpBase, double ulpPerAbsArg, double absolute) {
        /** The error of a correctly rounded operation. */
        public static final Budget IEEE = new Budget(0.5, 0, 0);

        public double ulps(double absArg) {
            return ulpPerAbsArg == 0 ? ulpBase : ulpBase + ulpPerAbsArg * absArg;
        }
    }

    /** The smallest magnitude kept: results below it may become 0 (the absolute floor of every op). */
    public double flushFloor() {
        return switch (this) {
            case PRECISE -> 0x1p-150;
            case FAST -> 0x1p-126;
        };
    }

    /**
     * The budget of {@code fn} on f32 values: the larger of the reference's (1 ULP for the
     * transcendentals, IEEE otherwise) and this mode's. Functions that never round (neg, abs, max,
     * min, rem, comparisons, logic, select) are {@link Budget#IEEE} and the bound adds no rounding for them.
     */
    public Budget budget(Fn fn) {
        double sinAbs = Math.pow(2, -21.41);
        return switch (fn) {
            case ADD, SUB, MUL, NEG, ABS, MAX, MIN, REM, EQ, NE, LT, LE, GT, GE, AND, OR, NOT, SELECT -> Budget.IEEE;
            case DIV -> this == PRECISE ? Budget.IEEE : new Budget(2, 0, 0);          // __fdividef: 2 ulp
            case RECIP -> this == PRECISE ? Budget.IEEE : new Budget(1, 0, 0);        // approximate 1/x: 1 ulp
            case SQRT -> this == PRECISE ? Budget.IEEE : new Budget(3, 0, 0);         // approximate sqrtf: 3 ulp (conservative)
            case RSQRT -> new Budget(2, 0, 0);                                         // rsqrtf: 2 ulp
            case EXP -> this == PRECISE ? new Budget(2, 0, 0) : new Budget(2, 1.173, 0); // expf 2; __expf 2 + floor(1.173|x|)
            case LOG -> this == PRECISE ? new Budget(1, 0, 0) : new Budget(3, 0, sinAbs); // logf 1; __logf 3 ulp or 2^-21.41 abs
            case TANH -> new Budget(2, 0, 0);                                          // tanhf: 2 ulp
            case SIN, COS -> this == PRECISE ? new Budget(2, 0, 0) : new Budget(1, 0x1p-22, sinAbs); // sinf 2; __sinf 2^-21.41 abs in [-pi, pi]
            case SIGMOID -> this == PRECISE ? new Budget(4, 0, 0) : new Budget(5, 1.173, 0); // 1/(1+expf(-x)): exp + add + div
        };
    }

    /** The spelling used in manifests and on the command line. */
    public String spelling() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** The mode spelled {@code spelling} (see {@link #spelling}), or null when there is none. */
    public static MathMode fromSpelling(String spelling) {
        for (MathMode m : values()) {
            if (m.spelling().equals(spelling)) {
                return m;
            }
        }
        return null;
    }
}
