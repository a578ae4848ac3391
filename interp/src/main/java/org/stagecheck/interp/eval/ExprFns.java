package org.stagecheck.interp.eval;

import org.stagecheck.spec.ir.Fn;

/**
 * The functions of the {@code Generic} algebra per value type (docs/semantics.md, "Generic").
 * FLOAT (f32): IEEE operations; max/min propagate NaN and order -0 below +0 ({@link Math#max});
 * rem is Java's {@code %} (truncated, sign of the dividend). Transcendentals: StrictMath in
 * double, rounded once to f32. INT: wrap-around; div/rem by zero is the fault DIV_BY_ZERO.
 *
 * <p>Every switch over {@link Fn} names every function, those of other families included, with no
 * {@code default}: a new function does not compile until each family decides what it means.
 */
final class ExprFns {
    private ExprFns() {
    }

    private static Fault typeFault(Fn fn, Col a, Col b) {
        return new Fault("EXPR_TYPE", "kind", null, fn.spelling() + " cannot take " + a.typeName()
                + (b == null ? "" : " and " + b.typeName()) + ".");
    }

    static Col arith(Fn fn, Col a, Col b, int n) throws Fault {
        if (a instanceof Col.F(float[] x) && b instanceof Col.F(float[] y)) {
            float[] v = new float[n];
            for (int e = 0; e < n; e++) {
                v[e] = switch (fn) {
                    case ADD -> x[e] + y[e];
                    case SUB -> x[e] - y[e];
                    case MUL -> x[e] * y[e];
                    case DIV -> x[e] / y[e];
                    case MAX -> Math.max(x[e], y[e]);
                    case MIN -> Math.min(x[e], y[e]);
                    case REM -> x[e] % y[e];
                    case NEG, ABS, EXP, LOG, SQRT, RSQRT, TANH, SIGMOID, RECIP, SIN, COS, EQ, NE,
                         LT, LE, GT, GE, AND, OR, NOT, SELECT
                            -> throw new IllegalArgumentException(fn + " is not arithmetic");
                };
            }
            return new Col.F(v);
        }
        if (a instanceof Col.D(double[] x) && b instanceof Col.D(double[] y)) {
            double[] v = new double[n];
            for (int e = 0; e < n; e++) {
                v[e] = switch (fn) {
                    case ADD -> x[e] + y[e];
                    case SUB -> x[e] - y[e];
                    case MUL -> x[e] * y[e];
                    case DIV -> x[e] / y[e];
                    case MAX -> Math.max(x[e], y[e]);
                    case MIN -> Math.min(x[e], y[e]);
                    case REM -> x[e] % y[e];
                    case NEG, ABS, EXP, LOG, SQRT, RSQRT, TANH, SIGMOID, RECIP, SIN, COS, EQ, NE,
                         LT, LE, GT, GE, AND, OR, NOT, SELECT
                            -> throw new IllegalArgumentException(fn + " is not arithmetic");
                };
            }
            return new Col.D(v);
        }
        if (a instanceof Col.I(int[] x) && b instanceof Col.I(int[] y)) {
            int[] v = new int[n];
            for (int e = 0; e < n; e++) {
                if ((fn == Fn.DIV || fn == Fn.REM) && y[e] == 0) {
                    throw new Fault("DIV_BY_ZERO", "kind", null, "integer " + fn.spelling() + " by zero at element " + e + ".");
                }
                v[e] = switch (fn) {
                    case ADD -> x[e] + y[e];
                    case SUB -> x[e] - y[e];
                    case MUL -> x[e] * y[e];
                    case DIV -> x[e] / y[e];
                    case MAX -> Math.max(x[e], y[e]);
                    case MIN -> Math.min(x[e], y[e]);
                    case REM -> x[e] % y[e];
                    case NEG, ABS, EXP, LOG, SQRT, RSQRT, TANH, SIGMOID, RECIP, SIN, COS, EQ, NE,
                         LT, LE, GT, GE, AND, OR, NOT, SELECT
                            -> throw new IllegalArgumentException(fn + " is not arithmetic");
                };
            }
            return new Col.I(v);
        }
        throw typeFault(fn, a, b);
    }

    static Col numericUnary(Fn fn, Col a, int n) throws Fault {
        boolean negate = switch (fn) {
            case NEG -> true;
            case ABS -> false;
            case ADD, SUB, MUL, DIV, MAX, MIN, REM, EXP, LOG, SQRT, RSQRT, TANH, SIGMOID, RECIP, SIN, COS,
                 EQ, NE, LT, LE, GT, GE, AND, OR, NOT, SELECT
                    -> throw new IllegalArgumentException(fn + " is not a numeric unary function");
        };
        return switch (a) {
            case Col.F(float[] x) -> {
                float[] v = new float[n];
                for (int e = 0; e < n; e++) {
                    v[e] = negate ? -x[e] : Math.abs(x[e]);
                }
                yield new Col.F(v);
            }
            case Col.D(double[] x) -> {
                double[] v = new double[n];
                for (int e = 0; e < n; e++) {
                    v[e] = negate ? -x[e] : Math.abs(x[e]);
                }
                yield new Col.D(v);
            }
            case Col.I(int[] x) -> {
                int[] v = new int[n];
                for (int e = 0; e < n; e++) {
                    v[e] = negate ? -x[e] : Math.abs(x[e]); // abs(MIN_VALUE) wraps to MIN_VALUE
                }
                yield new Col.I(v);
            }
            case Col.B b -> throw typeFault(fn, a, null);
        };
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
                 NOT, SELECT
                    -> throw new IllegalArgumentException(fn + " is not a float function");
        };
    }

    static Col floatUnary(Fn fn, Col a, int n) throws Fault {
        return switch (a) {
            case Col.F(float[] x) -> {
                float[] v = new float[n];
                for (int e = 0; e < n; e++) {
                    v[e] = (float) transcendental(fn, x[e]);
                }
                yield new Col.F(v);
            }
            case Col.D(double[] x) -> {
                double[] v = new double[n];
                for (int e = 0; e < n; e++) {
                    v[e] = transcendental(fn, x[e]);
                }
                yield new Col.D(v);
            }
            case Col.I i -> throw typeFault(fn, a, null);
            case Col.B b -> throw typeFault(fn, a, null);
        };
    }

    static Col compare(Fn fn, Col a, Col b, int n) throws Fault {
        boolean[] v = new boolean[n];
        if (a instanceof Col.F(float[] x) && b instanceof Col.F(float[] y)) {
            for (int e = 0; e < n; e++) {
                v[e] = cmp(fn, x[e], y[e]);
            }
        } else if (a instanceof Col.D(double[] x) && b instanceof Col.D(double[] y)) {
            for (int e = 0; e < n; e++) {
                v[e] = cmp(fn, x[e], y[e]);
            }
        } else if (a instanceof Col.I(int[] x) && b instanceof Col.I(int[] y)) {
            for (int e = 0; e < n; e++) {
                v[e] = cmp(fn, x[e], y[e]);
            }
        } else {
            throw typeFault(fn, a, b);
        }
        return new Col.B(v);
    }

    /** IEEE comparison: every comparison with NaN is false except {@code ne}. */
    private static boolean cmp(Fn fn, double x, double y) {
        return switch (fn) {
            case EQ -> x == y;
            case NE -> x != y;
            case LT -> x < y;
            case LE -> x <= y;
            case GT -> x > y;
            case GE -> x >= y;
            case ADD, SUB, MUL, DIV, MAX, MIN, REM, NEG, ABS, EXP, LOG, SQRT, RSQRT, TANH,
                 SIGMOID, RECIP, SIN, COS, AND, OR, NOT, SELECT
                    -> throw new IllegalArgumentException(fn + " is not a comparison");
        };
    }

    static Col logic(Fn fn, Col a, Col b, int n) throws Fault {
        if (!(a instanceof Col.B(boolean[] x)) || (b != null && !(b instanceof Col.B))) {
            throw typeFault(fn, a, b);
        }
        boolean[] y = b == null ? null : ((Col.B) b).v();
        boolean[] v = new boolean[n];
        for (int e = 0; e < n; e++) {
            v[e] = switch (fn) {
                case AND -> x[e] && y[e];
                case OR -> x[e] || y[e];
                case NOT -> !x[e];
                case ADD, SUB, MUL, DIV, MAX, MIN, REM, NEG, ABS, EXP, LOG, SQRT, RSQRT, TANH,
                     SIGMOID, RECIP, SIN, COS, EQ, NE, LT, LE, GT, GE, SELECT
                        -> throw new IllegalArgumentException(fn + " is not logic");
            };
        }
        return new Col.B(v);
    }

    static Col select(Col c, Col a, Col b, int n) throws Fault {
        if (!(c instanceof Col.B(boolean[] w))) {
            throw typeFault(Fn.SELECT, c, null);
        }
        if (a instanceof Col.F(float[] x) && b instanceof Col.F(float[] y)) {
            float[] v = new float[n];
            for (int e = 0; e < n; e++) v[e] = w[e] ? x[e] : y[e];
            return new Col.F(v);
        }
        if (a instanceof Col.D(double[] x) && b instanceof Col.D(double[] y)) {
            double[] v = new double[n];
            for (int e = 0; e < n; e++) v[e] = w[e] ? x[e] : y[e];
            return new Col.D(v);
        }
        if (a instanceof Col.I(int[] x) && b instanceof Col.I(int[] y)) {
            int[] v = new int[n];
            for (int e = 0; e < n; e++) v[e] = w[e] ? x[e] : y[e];
            return new Col.I(v);
        }
        if (a instanceof Col.B(boolean[] x) && b instanceof Col.B(boolean[] y)) {
            boolean[] v = new boolean[n];
            for (int e = 0; e < n; e++) v[e] = w[e] ? x[e] : y[e];
            return new Col.B(v);
        }
        throw typeFault(Fn.SELECT, a, b);
    }
}
