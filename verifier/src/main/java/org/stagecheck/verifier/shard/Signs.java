package org.stagecheck.verifier.shard;

import java.util.List;

/**
 * Signs of float terms that follow from their operations alone (docs/verifier.md, "All-gathers
 * built from all-reduces"): a term is never negative when every element is {@code >= 0} or NaN
 * for every value of the logical tensors. {@code exp}, {@code sigmoid} and {@code abs} are never
 * negative; so are a max with a never-negative operand, a min, sum or product of never-negative
 * operands and a constant {@code >= +0}. The negation of a never-negative term is never positive.
 * Anything else is unknown, casts included: the terms asked about are float (a padded gather's
 * fill is a float constant, and the expression algebra mixes no types without a cast), so every
 * operation down to the first cast is float arithmetic, which does not wrap; below a cast, i32
 * arithmetic may ({@code f32(add(abs(e), 2147483647))} is negative). The depth is bounded, so a
 * deep term costs a constant.
 */
final class Signs {
    private static final int DEPTH = 8;

    private Signs() {}

    static boolean neverNegative(Term t) {
        return neverNegative(t, DEPTH);
    }

    static boolean neverPositive(Term t) {
        String op = t.opName();
        return t instanceof Term.Op o && op.equals("neg") && o.arity() == 1 && neverNegative(o.arg(0), DEPTH)
                || constantAtMost0(t);
    }

    private static boolean neverNegative(Term t, int depth) {
        if (t.isFloatConstant() || t.isIntegerConstant()) {
            Number v = t.constantValue();
            // +0 and above; -0.0 is left out so a max with a zero padding gives back the value's own bits
            return v != null && (v.doubleValue() > 0 || v.doubleValue() == 0 && Double.doubleToRawLongBits(v.doubleValue()) == 0);
        }
        if (depth == 0) {
            return false;
        }
        String flat = t.flatOp();
        if (flat != null) {
            boolean any = false;
            boolean all = true;
            List<Term> operands = t.operands().distinct();
            long[] counts = t.operands().counts();
            for (int i = 0; i < operands.size(); i++) {
                boolean n = neverNegative(operands.get(i), depth - 1);
                any |= n;
                all &= n && counts[i] > 0;
            }
            Term k = t.constant();
            boolean kOk = k == null || neverNegative(k, depth - 1);
            return switch (flat) {
                case "max" -> any || k != null && neverNegative(k, depth - 1);
                case "sum", "min" -> all && kOk;
                default -> false;
            };
        }
        String op = t.opName();
        if (op == null) {
            return false;
        }
        Term[] args = t.opArgs();
        return switch (op) {
            case "exp", "sigmoid", "abs" -> true;
            case "max" -> neverNegative(args[0], depth - 1) || neverNegative(args[1], depth - 1);
            case "min", "add", "mul" -> neverNegative(args[0], depth - 1) && neverNegative(args[1], depth - 1);
            // a cast passes no sign: its argument may be i32 arithmetic, which wraps below zero
            default -> false;
        };
    }

    private static boolean constantAtMost0(Term t) {
        if (!(t.isFloatConstant() || t.isIntegerConstant())) {
            return false;
        }
        Number v = t.constantValue();
        return v != null && (v.doubleValue() < 0 || v.doubleValue() == 0 && Double.doubleToRawLongBits(v.doubleValue()) != 0);
    }
}
