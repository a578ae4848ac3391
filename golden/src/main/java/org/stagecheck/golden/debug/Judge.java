package org.stagecheck.golden.debug;

import java.util.Locale;

import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.tensor.compare.PolicyNumbers;

/**
 * How a diff judges a stage's outputs (docs/debugging.md, "Beyond rounding"; {@code diff --policy}).
 *
 * <ul>
 *   <li>{@link StageDerived}, the default: a stage diverges when its output is further from the
 *       float64 evaluation of that stage <em>on the inputs the backend fed it</em> than
 *       {@code factor} times the stage's own derived bound (its rounding, with those inputs known
 *       to within their own rounding to their dtype). A chain of rounding differences upstream
 *       is not a divergence, so the first stage that diverges is the first whose own error is
 *       beyond rounding.</li>
 *   <li>{@link ByPolicy}: the stage's output against the reference's f32 value under a value policy
 *       ({@code exact}, {@code ulp N}, {@code allclose}, {@code pcc}): {@code exact} finds the first
 *       bit of difference, rounding or not.</li>
 * </ul>
 */
public sealed interface Judge {
    /**
     * The default factor: 1, the bound itself. The bound is sound (every conforming evaluation of
     * the stage is within it), and tight for a stage that rounds once: the reference itself uses
     * up to 0.97 of it on the tiny decode step, a float64 evaluation rounded per stage 0.99. A
     * larger factor would let through bugs of about one unit in the last place, such as a bf16
     * rounding by truncation, whose error is at most twice the bound.
     */
    double DEFAULT_FACTOR = 1;

    /** Beyond {@code factor} times the stage's own derived bound, given the backend's inputs. */
    record StageDerived(double factor) implements Judge {
        public StageDerived {
            if (!(factor >= 1) || Double.isInfinite(factor)) {
                throw new IllegalArgumentException("a stage-derived factor is finite and at least 1, not " + factor);
            }
        }
    }

    /** Against the reference's f32 value under {@code policy} (never {@code derived}, which bounds whole runs). */
    record ByPolicy(Policy policy) implements Judge {
        public ByPolicy {
            if (policy instanceof Policy.Derived) {
                throw new IllegalArgumentException("the derived policy bounds whole runs; a diff judges stages by stage-derived [FACTOR] "
                        + "(the stage's own derived bound on the backend's inputs), exact, ulp N, allclose or pcc");
            }
        }
    }

    /** The default judgement: {@code stage-derived} with {@link #DEFAULT_FACTOR}. */
    static Judge defaults() {
        return new StageDerived(DEFAULT_FACTOR);
    }

    /** {@code stage-derived}, {@code stage-derived 4}, or the policy's own spelling. */
    default String spelling() {
        return switch (this) {
            case StageDerived s -> s.factor() == DEFAULT_FACTOR ? "stage-derived"
                    : "stage-derived " + Double.toString(s.factor()).replaceAll("\\.0$", "");
            case ByPolicy p -> p.policy().spelling();
        };
    }

    /**
     * Reads {@code stage-derived [FACTOR]} or a value policy ({@link Policy#parse}); words may be
     * separated by spaces, ':' or ','.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    static Judge parse(String text) {
        String[] w = text.strip().toLowerCase(Locale.ROOT).split("[\\s:,=]+");
        if (!w[0].equals("stage-derived")) {
            try {
                return new ByPolicy(Policy.parse(text));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(e.getMessage().replace("one of exact,", "one of stage-derived [FACTOR], exact,"));
            }
        }
        if (w.length > 2) {
            throw new IllegalArgumentException("stage-derived takes 0 to 1 number(s), not " + (w.length - 1));
        }
        return new StageDerived(w.length == 1 ? DEFAULT_FACTOR
                : PolicyNumbers.real(text, w[1], "FACTOR", "a finite number at least 1", v -> v >= 1));
    }
}
