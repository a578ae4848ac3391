package org.stagecheck.conformance;

import org.stagecheck.spec.ir.Fn;
import org.stagecheck.tensor.compare.Policy;

/**
 * How closely a backend's output tensor must match a case's hand-worked expectation
 * (docs/conformance.md, "The tolerance rule").
 *
 * <p>{@link Exact} is the default and the rule for everything but transcendental functions: every
 * element bit-equal, with one allowance, that a NaN matches any NaN of the same dtype (IEEE 754
 * fixes neither the payload nor the sign of a NaN an operation produces, and x86 and GPUs produce
 * different ones). {@link Ulps} is for outputs of {@code exp log rsqrt tanh sigmoid sin cos}: the
 * reference computes them with {@code StrictMath} in double and rounds once, while a backend may
 * use its platform's math library, so the bound is the CUDA guide's maximum error for the f32
 * function plus one (the reference's own half-ulp rounding and binade edges). NaN must still be
 * NaN, infinities must be equal, and the distance is counted in steps of the output dtype.
 *
 * <p>Each rule is a policy of the comparison engine ({@link #policy()}), which does the judging.
 */
public sealed interface Tolerance {

    /** Bit-equal elements; a NaN matches any NaN of the same dtype. */
    record Exact() implements Tolerance {
        @Override
        public String describe() {
            return "exact";
        }

        @Override
        public Policy policy() {
            return new Policy.ExactAnyNaN();
        }
    }

    /**
     * At most {@code maxUlps} representable values apart in the output dtype; NaN only matches
     * NaN and an infinity only itself.
     */
    record Ulps(int maxUlps) implements Tolerance {
        public Ulps {
            if (maxUlps < 0) {
                throw new IllegalArgumentException("an ULP bound cannot be negative: " + maxUlps);
            }
        }

        @Override
        public String describe() {
            return "within " + maxUlps + " ulp";
        }

        @Override
        public Policy policy() {
            return new Policy.Ulp(maxUlps);
        }
    }

    /** A short phrase for reports, e.g. {@code exact} or {@code within 3 ulp}. */
    String describe();

    /** The comparison engine's policy that judges this rule. */
    Policy policy();

    /** The default tolerance. */
    static Tolerance exact() {
        return new Exact();
    }

    static Tolerance ulps(int n) {
        return new Ulps(n);
    }

    /**
     * The tolerance for an f32 output that is {@code fn} applied to exact inputs: the CUDA C
     * Programming Guide's maximum ULP error for the single-precision function, plus one. sqrt and
     * recip are IEEE 754 basic operations, correctly rounded on every conforming platform (and the
     * reference's double-then-f32 rounding of them is innocuous), so they are exact, as is every
     * function that is not transcendental.
     */
    static Tolerance forFunction(Fn fn) {
        return switch (fn) {
            case EXP -> ulps(3);       // expf: 2 ulp
            case LOG -> ulps(2);       // logf: 1 ulp
            case RSQRT -> ulps(3);     // rsqrtf: 2 ulp
            case TANH -> ulps(3);      // tanhf: 2 ulp
            case SIGMOID -> ulps(4);   // 1 / (1 + expf(-x)): expf's 2 ulp, then a correctly rounded add and divide
            case SIN, COS -> ulps(3);  // sinf, cosf: 2 ulp
            case SQRT, RECIP -> exact();
            case ADD, SUB, MUL, DIV, MAX, MIN, REM, NEG, ABS, EQ, NE, LT, LE, GT, GE, AND, OR, NOT, SELECT -> exact();
        };
    }
}
