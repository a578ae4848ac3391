package org.stagecheck.interp.eval;

import org.stagecheck.backend.FaultCode;
import org.stagecheck.spec.ir.Fn;

/**
 * The functions of the {@code Generic} algebra per value type (docs/semantics.md, "Generic"), as
 * column kernels: each fills {@code v[0..n)} from its argument columns, one loop per function (the
 * function is chosen once per column, never per element). FLOAT (f32): IEEE operations; max/min
 * propagate NaN and order -0 below +0 ({@link Math#max}); rem is Java's {@code %} (truncated, sign
 * of the dividend). Transcendentals: StrictMath in double, rounded once to f32. INT: wrap-around;
 * div/rem by zero is the fault DIV_BY_ZERO.
 *
 * <p>Every kernel reads element {@code e} of its arguments before it writes element {@code e} of
 * {@code v}, so {@code v} may be one of the arguments (the compiler reuses a column that is no
 * longer needed). Every switch over {@link Fn} names every function, those of other families
 * included, with no {@code default}: a new function does not compile until each family decides
 * what it means.
 */
final class ExprFns {
    private ExprFns() {
    }

    private static IllegalArgumentException notIn(Fn fn, String family) {
        return new IllegalArgumentException(fn + " is not " + family);
    }

    static void arith(Fn fn, float[] x, float[] y, float[] v, int n) {
        switch (fn) {
            case ADD -> { for (int e = 0; e < n; e++) v[e] = x[e] + y[e]; }
            case SUB -> { for (int e = 0; e < n; e++) v[e] = x[e] - y[e]; }
            case MUL -> { for (int e = 0; e < n; e++) v[e] = x[e] * y[e]; }
            case DIV -> { for (int e = 0; e < n; e++) v[e] = x[e] / y[e]; }
            case MAX -> { for (int e = 0; e < n; e++) v[e] = Math.max(x[e], y[e]); }
            case MIN -> { for (int e = 0; e < n; e++) v[e] = Math.min(x[e], y[e]); }
            case REM -> { for (int e = 0; e < n; e++) v[e] = x[e] % y[e]; }
            case NEG, ABS, EXP, LOG, SQRT, RSQRT, TANH, SIGMOID, RECIP, SIN, COS, EQ, NE, LT, LE, GT, GE, AND, OR,
                 NOT, SELECT -> throw notIn(fn, "arithmetic");
        }
    }

    static void arith(Fn fn, double[] x, double[] y, double[] v, int n) {
        switch (fn) {
            case ADD -> { for (int e = 0; e < n; e++) v[e] = x[e] + y[e]; }
            case SUB -> { for (int e = 0; e < n; e++) v[e] = x[e] - y[e]; }
            case MUL -> { for (int e = 0; e < n; e++) v[e] = x[e] * y[e]; }
            case DIV -> { for (int e = 0; e < n; e++) v[e] = x[e] / y[e]; }
            case MAX -> { for (int e = 0; e < n; e++) v[e] = Math.max(x[e], y[e]); }
            case MIN -> { for (int e = 0; e < n; e++) v[e] = Math.min(x[e], y[e]); }
            case REM -> { for (int e = 0; e < n; e++) v[e] = x[e] % y[e]; }
            case NEG, ABS, EXP, LOG, SQRT, RSQRT, TANH, SIGMOID, RECIP, SIN, COS, EQ, NE, LT, LE, GT, GE, AND, OR,
                 NOT, SELECT -> throw notIn(fn, "arithmetic");
        }
    }

    static void arith(Fn fn, int[] x, int[] y, int[] v, int n) throws Fault {
        switch (fn) {
            case ADD -> { for (int e = 0; e < n; e++) v[e] = x[e] + y[e]; }
            case SUB -> { for (int e = 0; e < n; e++) v[e] = x[e] - y[e]; }
            case MUL -> { for (int e = 0; e < n; e++) v[e] = x[e] * y[e]; }
            case MAX -> { for (int e = 0; e < n; e++) v[e] = Math.max(x[e], y[e]); }
            case MIN -> { for (int e = 0; e < n; e++) v[e] = Math.min(x[e], y[e]); }
            case DIV -> {
                for (int e = 0; e < n; e++) {
                    if (y[e] == 0) {
                        throw divByZero(fn, e);
                    }
                    v[e] = x[e] / y[e];
                }
            }
            case REM -> {
                for (int e = 0; e < n; e++) {
                    if (y[e] == 0) {
                        throw divByZero(fn, e);
                    }
                    v[e] = x[e] % y[e];
                }
            }
            case NEG, ABS, EXP, LOG, SQRT, RSQRT, TANH, SIGMOID, RECIP, SIN, COS, EQ, NE, LT, LE, GT, GE, AND, OR,
                 NOT, SELECT -> throw notIn(fn, "arithmetic");
        }
    }

    private static Fault divByZero(Fn fn, int e) {
        return new Fault(FaultCode.DIV_BY_ZERO, "kind", null, "integer " + fn.spelling() + " by zero at element " + e + ".");
    }

    /** NEG or ABS; any other function is not a numeric unary one. */
    private static boolean negates(Fn fn) {
        return switch (fn) {
            case NEG -> true;
            case ABS -> false;
            case ADD, SUB, MUL, DIV, MAX, MIN, REM, EXP, LOG, SQRT, RSQRT, TANH, SIGMOID, RECIP, SIN, COS,
                 EQ, NE, LT, LE, GT, GE, AND, OR, NOT, SELECT -> throw notIn(fn, "a numeric unary function");
        };
    }

    static void numericUnary(Fn fn, float[] x, float[] v, int n) {
        if (negates(fn)) {
            for (int e = 0; e < n; e++) v[e] = -x[e];
        } else {
            for (int e = 0; e < n; e++) v[e] = Math.abs(x[e]);
        }
    }

    static void numericUnary(Fn fn, double[] x, double[] v, int n) {
        if (negates(fn)) {
            for (int e = 0; e < n; e++) v[e] = -x[e];
        } else {
            for (int e = 0; e < n; e++) v[e] = Math.abs(x[e]);
        }
    }

    static void numericUnary(Fn fn, int[] x, int[] v, int n) {
        if (negates(fn)) {
            for (int e = 0; e < n; e++) v[e] = -x[e];
        } else {
            for (int e = 0; e < n; e++) v[e] = Math.abs(x[e]); // abs(MIN_VALUE) wraps to MIN_VALUE
        }
    }

    /** The function in double with StrictMath: the single definition both precisions use. */
    static double transcendental(Fn fn, double x) {
        return switch (fn) {
            case EXP -> StrictMath.exp(x);
            case LOG -> StrictMath.log(x);
            case SQRT -> StrictMath.sqrt(x);
            case RSQRT -> 1.0 / StrictMath.sqrt(x);
            case TANH -> StrictMath.tanh(x);
            case SIGMOID -> 1.0 / (1.0 + StrictMath.exp(-x));
            case RECIP -> 1.0 / x;
            case SIN -> StrictMath.sin(x);
            case COS -> StrictMath.cos(x);
            case ADD, SUB, MUL, DIV, MAX, MIN, REM, NEG, ABS, EQ, NE, LT, LE, GT, GE, AND, OR,
                 NOT, SELECT -> throw notIn(fn, "a float function");
        };
    }

    /** {@link #transcendental} of every element, rounded once to f32; one loop per function. */
    static void floatUnary(Fn fn, float[] x, float[] v, int n) {
        switch (fn) {
            case EXP -> { for (int e = 0; e < n; e++) v[e] = (float) StrictMath.exp(x[e]); }
            case LOG -> { for (int e = 0; e < n; e++) v[e] = (float) StrictMath.log(x[e]); }
            case SQRT -> { for (int e = 0; e < n; e++) v[e] = (float) StrictMath.sqrt(x[e]); }
            case RSQRT -> { for (int e = 0; e < n; e++) v[e] = (float) (1.0 / StrictMath.sqrt(x[e])); }
            case TANH -> { for (int e = 0; e < n; e++) v[e] = (float) StrictMath.tanh(x[e]); }
            case SIGMOID -> { for (int e = 0; e < n; e++) v[e] = (float) (1.0 / (1.0 + StrictMath.exp(-(double) x[e]))); }
            case RECIP -> { for (int e = 0; e < n; e++) v[e] = (float) (1.0 / x[e]); }
            case SIN -> { for (int e = 0; e < n; e++) v[e] = (float) StrictMath.sin(x[e]); }
            case COS -> { for (int e = 0; e < n; e++) v[e] = (float) StrictMath.cos(x[e]); }
            case ADD, SUB, MUL, DIV, MAX, MIN, REM, NEG, ABS, EQ, NE, LT, LE, GT, GE, AND, OR,
                 NOT, SELECT -> throw notIn(fn, "a float function");
        }
    }

    static void floatUnary(Fn fn, double[] x, double[] v, int n) {
        for (int e = 0; e < n; e++) {
            v[e] = transcendental(fn, x[e]);
        }
    }

    /** IEEE comparison: every comparison with NaN is false except {@code ne}. */
    static void compare(Fn fn, float[] x, float[] y, boolean[] v, int n) {
        switch (fn) {
            case EQ -> { for (int e = 0; e < n; e++) v[e] = x[e] == y[e]; }
            case NE -> { for (int e = 0; e < n; e++) v[e] = x[e] != y[e]; }
            case LT -> { for (int e = 0; e < n; e++) v[e] = x[e] < y[e]; }
            case LE -> { for (int e = 0; e < n; e++) v[e] = x[e] <= y[e]; }
            case GT -> { for (int e = 0; e < n; e++) v[e] = x[e] > y[e]; }
            case GE -> { for (int e = 0; e < n; e++) v[e] = x[e] >= y[e]; }
            case ADD, SUB, MUL, DIV, MAX, MIN, REM, NEG, ABS, EXP, LOG, SQRT, RSQRT, TANH, SIGMOID, RECIP, SIN,
                 COS, AND, OR, NOT, SELECT -> throw notIn(fn, "a comparison");
        }
    }

    static void compare(Fn fn, double[] x, double[] y, boolean[] v, int n) {
        switch (fn) {
            case EQ -> { for (int e = 0; e < n; e++) v[e] = x[e] == y[e]; }
            case NE -> { for (int e = 0; e < n; e++) v[e] = x[e] != y[e]; }
            case LT -> { for (int e = 0; e < n; e++) v[e] = x[e] < y[e]; }
            case LE -> { for (int e = 0; e < n; e++) v[e] = x[e] <= y[e]; }
            case GT -> { for (int e = 0; e < n; e++) v[e] = x[e] > y[e]; }
            case GE -> { for (int e = 0; e < n; e++) v[e] = x[e] >= y[e]; }
            case ADD, SUB, MUL, DIV, MAX, MIN, REM, NEG, ABS, EXP, LOG, SQRT, RSQRT, TANH, SIGMOID, RECIP, SIN,
                 COS, AND, OR, NOT, SELECT -> throw notIn(fn, "a comparison");
        }
    }

    static void compare(Fn fn, int[] x, int[] y, boolean[] v, int n) {
        switch (fn) {
            case EQ -> { for (int e = 0; e < n; e++) v[e] = x[e] == y[e]; }
            case NE -> { for (int e = 0; e < n; e++) v[e] = x[e] != y[e]; }
            case LT -> { for (int e = 0; e < n; e++) v[e] = x[e] < y[e]; }
            case LE -> { for (int e = 0; e < n; e++) v[e] = x[e] <= y[e]; }
            case GT -> { for (int e = 0; e < n; e++) v[e] = x[e] > y[e]; }
            case GE -> { for (int e = 0; e < n; e++) v[e] = x[e] >= y[e]; }
            case ADD, SUB, MUL, DIV, MAX, MIN, REM, NEG, ABS, EXP, LOG, SQRT, RSQRT, TANH, SIGMOID, RECIP, SIN,
                 COS, AND, OR, NOT, SELECT -> throw notIn(fn, "a comparison");
        }
    }

    /** AND, OR ({@code y} its second argument) or NOT ({@code y} null). */
    static void logic(Fn fn, boolean[] x, boolean[] y, boolean[] v, int n) {
        switch (fn) {
            case AND -> { for (int e = 0; e < n; e++) v[e] = x[e] && y[e]; }
            case OR -> { for (int e = 0; e < n; e++) v[e] = x[e] || y[e]; }
            case NOT -> { for (int e = 0; e < n; e++) v[e] = !x[e]; }
            case ADD, SUB, MUL, DIV, MAX, MIN, REM, NEG, ABS, EXP, LOG, SQRT, RSQRT, TANH, SIGMOID, RECIP, SIN,
                 COS, EQ, NE, LT, LE, GT, GE, SELECT -> throw notIn(fn, "logic");
        }
    }

    /** {@code v[e] = w[e] ? x[e] : y[e]}: both branches are already evaluated (docs/semantics.md, "select"). */
    static void select(boolean[] w, float[] x, float[] y, float[] v, int n) {
        for (int e = 0; e < n; e++) v[e] = w[e] ? x[e] : y[e];
    }

    static void select(boolean[] w, double[] x, double[] y, double[] v, int n) {
        for (int e = 0; e < n; e++) v[e] = w[e] ? x[e] : y[e];
    }

    static void select(boolean[] w, int[] x, int[] y, int[] v, int n) {
        for (int e = 0; e < n; e++) v[e] = w[e] ? x[e] : y[e];
    }

    static void select(boolean[] w, boolean[] x, boolean[] y, boolean[] v, int n) {
        for (int e = 0; e < n; e++) v[e] = w[e] ? x[e] : y[e];
    }
}
