package org.stagecheck.verifier.shard;

import java.util.List;
import java.util.Map;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Param;

/**
 * Bounds on the magnitude of values (docs/verifier.md, "Ranges of partials"): for every value an
 * upper bound on |v| (possibly infinite), derived from the dtypes of the bound tensors (the
 * program format declares no value ranges, so an input may hold anything its dtype can) through
 * each operation. Arithmetic is in f32 and rounded to the storage dtype once per stage
 * (docs/semantics.md): a bound above a format's largest finite value becomes infinite for f16,
 * bf16 and f32 (they overflow to infinity), and the largest finite value for e4m3, e5m2 (they
 * saturate) and i32.
 */
final class ValueBounds {
    static final double UNBOUNDED = Double.POSITIVE_INFINITY;

    private ValueBounds() {}

    /** The largest finite magnitude of {@code d}. */
    static double maxFinite(DType d) {
        return switch (d) {
            case F32 -> Float.MAX_VALUE;
            case BF16 -> 3.3895313892515355e38;
            case F16 -> 65504;
            case E4M3 -> 448;
            case E5M2 -> 57344;
            case I32 -> 2147483648.0;
        };
    }

    /** Whether rounding to {@code d} past its largest finite value saturates (else it overflows to infinity). */
    static boolean saturates(DType d) {
        return switch (d) {
            case E4M3, E5M2, I32 -> true;
            case F32, BF16, F16 -> false;
        };
    }

    /** Bound {@code b} after rounding to {@code d}. */
    static double rounded(double b, DType d) {
        if (b <= maxFinite(d)) {
            return b;
        }
        return saturates(d) ? maxFinite(d) : UNBOUNDED;
    }

    /** Whether a value of bound {@code b} can leave the finite range of {@code d}. */
    static boolean exceeds(double b, DType d) {
        return b > maxFinite(d);
    }

    static double add(double a, double b) {
        return a + b;
    }

    /** {@code a * b}, where 0 times anything (the infinite bound included) is 0. */
    static double mul(double a, double b) {
        return a == 0 || b == 0 ? 0 : a * b;
    }

    /** A cast to a narrower format met while bounding an expression: its dtype and the bound of what it rounds. */
    record Cast(DType dtype, double before) {}

    /**
     * The bound of {@code e} with input {@code k} bounded by {@code ins.get(k)}; each floating cast
     * is added to {@code casts} with the bound it rounds. Deep expressions give the infinite bound
     * rather than a stack overflow.
     */
    static double of(Expr e, List<Double> ins, Map<String, Param> params, List<Cast> casts) {
        try {
            return eval(e, ins, params, casts);
        } catch (StackOverflowError deep) {
            return UNBOUNDED;
        }
    }

    private static double eval(Expr e, List<Double> ins, Map<String, Param> params, List<Cast> casts) {
        return switch (e) {
            case Expr.In i -> i.index() < ins.size() ? ins.get(i.index()) : UNBOUNDED;
            case Expr.FloatConst f -> Math.abs(f.value());
            case Expr.IntConst i -> Math.abs((double) i.value());
            case Expr.ParamRef r -> params.containsKey(r.name())
                    ? Math.max(Math.abs((double) params.get(r.name()).min()), Math.abs((double) params.get(r.name()).max())) : maxFinite(DType.I32);
            case Expr.Index x -> maxFinite(DType.I32);
            case Expr.Cast c -> {
                double a = eval(c.arg(), ins, params, casts);
                if (c.dtype().isFloating()) {
                    casts.add(new Cast(c.dtype(), a));
                }
                yield rounded(a, c.dtype());
            }
            case Expr.Apply a -> apply(a, ins, params, casts);
        };
    }

    private static double apply(Expr.Apply a, List<Double> ins, Map<String, Param> params, List<Cast> casts) {
        double[] x = new double[a.args().size()];
        for (int k = 0; k < x.length; k++) {
            x[k] = eval(a.args().get(k), ins, params, casts);
        }
        return switch (a.fn()) {
            case ADD, SUB -> add(x[0], x[1]);
            case MUL -> mul(x[0], x[1]);
            case MAX, MIN -> Math.max(x[0], x[1]);
            case REM -> x[0];
            case NEG, ABS -> x[0];
            case EXP -> Math.exp(x[0]);
            case SQRT -> Math.sqrt(x[0]);
            case TANH, SIGMOID, SIN, COS -> 1;
            case DIV, LOG, RSQRT, RECIP -> UNBOUNDED;
            case EQ, NE, LT, LE, GT, GE, AND, OR, NOT -> 1;
            case SELECT -> Math.max(x[1], x[2]);
        };
    }
}
