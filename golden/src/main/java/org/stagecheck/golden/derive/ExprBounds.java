package org.stagecheck.golden.derive;

import org.stagecheck.backend.MathMode;
import java.util.List;
import java.util.Map;

import org.stagecheck.tensor.compare.FloatFormat;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;

/**
 * The error bound of a {@code Generic} expression (or a {@code Scalar} result, or an all-reduce's
 * combine) per output element, evaluated in float64 alongside the true value (docs/golden.md,
 * "Derived bounds"). Each node's bound is the propagated error of its arguments (a first-order-free,
 * interval-style worst case per function) plus the node's own rounding in f32: half an ULP for
 * a correctly rounded operation, the function's budget otherwise, plus the flush floor.
 */
final class ExprBounds {
    static final double U32 = 0x1p-24;
    private static final FloatFormat F32 = FloatFormat.of(DType.F32);

    private final int[] outShape;
    private final int n;
    private final List<Tensor> values;
    private final List<Tensor> errors;
    private final Map<String, Long> params;
    private final boolean scalar;
    private final MathMode mode;

    /**
     * @param values the inputs' true values (float64-mode tensors, or i32)
     * @param errors the inputs' error bounds, same shapes (i32 inputs: ignored)
     */
    ExprBounds(int[] outShape, List<Tensor> values, List<Tensor> errors, Map<String, Long> params, boolean scalar, MathMode mode) {
        this.outShape = outShape;
        this.n = Math.toIntExact(Shape.of(outShape).elementCount());
        this.values = values;
        this.errors = errors;
        this.params = params;
        this.scalar = scalar;
        this.mode = mode;
    }

    BoundCol eval(Expr x) {
        return switch (x) {
            case Expr.In in -> input(in.index());
            case Expr.FloatConst c -> {
                // the reference rounds the constant to f32; the true value is the constant itself
                double[] v = filled(c.value());
                yield new BoundCol(BoundCol.Type.FLOAT, v, filled(c.value() == (float) c.value() || Double.isNaN(c.value()) ? 0
                        : Math.abs(c.value() - (float) c.value())));
            }
            case Expr.IntConst c -> exactInt(c.value());
            case Expr.ParamRef p -> exactInt(params.getOrDefault(p.name(), 0L));
            case Expr.Index ix -> index(ix.axis());
            case Expr.Cast c -> cast(c.dtype(), eval(c.arg()));
            case Expr.Apply a -> apply(a.fn(), a.args());
        };
    }

    private double[] filled(double value) {
        double[] v = new double[n];
        java.util.Arrays.fill(v, value);
        return v;
    }

    private BoundCol exactInt(double value) {
        return new BoundCol(BoundCol.Type.INT, filled(value), new double[n]);
    }

    private BoundCol index(int axis) {
        long[] strides = Shape.of(outShape).strides();
        double[] v = new double[n];
        for (int e = 0; e < n; e++) {
            v[e] = (e / strides[axis]) % outShape[axis];
        }
        return new BoundCol(BoundCol.Type.INT, v, new double[n]);
    }

    private BoundCol input(int i) {
        Tensor t = values.get(i);
        Tensor err = errors.get(i);
        int[] src = scalar ? new int[n] : broadcast(t.shape(), outShape);
        double[] v = new double[n];
        double[] e = new double[n];
        boolean floating = t.dtype().isFloating();
        for (int k = 0; k < n; k++) {
            v[k] = t.getDouble(src[k]);
            e[k] = floating ? err.getDouble(src[k]) : 0;
        }
        return new BoundCol(floating ? BoundCol.Type.FLOAT : BoundCol.Type.INT, v, e);
    }

    /** numpy broadcasting: for each output element the flat index of the input element it reads. */
    static int[] broadcast(Shape in, int[] out) {
        int ro = out.length;
        int ri = in.rank();
        long[] inStrides = in.strides();
        int total = Math.toIntExact(Shape.of(out).elementCount());
        int[] src = new int[total];
        long[] outStrides = Shape.of(out).strides();
        for (int e = 0; e < total; e++) {
            long pos = 0;
            for (int a = 0; a < ro; a++) {
                int ia = a - (ro - ri);
                if (ia >= 0 && in.dim(ia) != 1) {
                    pos += ((e / outStrides[a]) % out[a]) * inStrides[ia];
                }
            }
            src[e] = (int) pos;
        }
        return src;
    }

    /** {@code a * b} with {@code 0 * inf = 0}: an exact zero error does not grow on an infinite value. */
    static double prod(double a, double b) {
        return a == 0 || b == 0 ? 0 : a * b;
    }

    /** The rounding error of a result of true value r with propagated error p, under budget b. */
    private double rounding(double r, double p, double absArg, MathMode.Budget b) {
        double mag = Math.abs(r) + p;
        double term = b == MathMode.Budget.IEEE ? U32 * mag : b.ulps(absArg) * F32.ulp(mag) + b.absolute();
        return term + mode.flushFloor();
    }

    private BoundCol cast(DType dtype, BoundCol c) {
        double[] v = new double[n];
        double[] e = new double[n];
        if (dtype.isInteger()) {
            for (int k = 0; k < n; k++) {
                double x = c.v()[k];
                double p = c.e()[k];
                v[k] = c.type() == BoundCol.Type.FLOAT ? (double) (int) x : x;
                if (p == 0) {
                    e[k] = 0;
                } else if (c.type() == BoundCol.Type.FLOAT && Double.isFinite(x) && Double.isFinite(p)
                        && (int) (x - p) == (int) (x + p)) {
                    // truncation is monotone: every value within the bound truncates to the same integer
                    e[k] = 0;
                } else {
                    // truncation can move by one more whenever the value is uncertain
                    e[k] = p + 1;
                }
            }
            return new BoundCol(BoundCol.Type.INT, v, e);
        }
        FloatFormat f = FloatFormat.of(dtype);
        for (int k = 0; k < n; k++) {
            v[k] = c.v()[k];
            double p = c.e()[k];
            e[k] = p + f.unitRoundoff() * (Math.abs(v[k]) + p) + Math.max(f.minSubnormal() / 2, mode.flushFloor());
        }
        return new BoundCol(BoundCol.Type.FLOAT, v, e);
    }

    private BoundCol apply(Fn fn, List<Expr> args) {
        BoundCol a = eval(args.get(0));
        return switch (fn.kind()) {
            case ARITH -> arith(fn, a, eval(args.get(1)));
            case NUMERIC_UNARY, FLOAT_UNARY -> unary(fn, a);
            case COMPARE -> compare(fn, a, eval(args.get(1)));
            case LOGIC -> logic(fn, a, fn.arity() == 2 ? eval(args.get(1)) : null);
            case SELECT -> select(a, eval(args.get(1)), eval(args.get(2)));
        };
    }

    private BoundCol arith(Fn fn, BoundCol a, BoundCol b) {
        boolean floating = a.type() == BoundCol.Type.FLOAT;
        double[] v = new double[n];
        double[] e = new double[n];
        MathMode.Budget budget = mode.budget(fn);
        for (int k = 0; k < n; k++) {
            double x = a.v()[k];
            double y = b.v()[k];
            double ex = a.e()[k];
            double ey = b.e()[k];
            double ax = Math.abs(x);
            double ay = Math.abs(y);
            double r;
            double p;
            boolean rounds = floating;
            switch (fn) {
                case ADD -> { r = x + y; p = ex + ey; }
                case SUB -> { r = x - y; p = ex + ey; }
                case MUL -> { r = x * y; p = prod(ax, ey) + prod(ay, ex) + prod(ex, ey); }
                case DIV -> {
                    r = floating ? x / y : (y == 0 ? 0 : (double) ((long) x / (long) y));
                    p = ay > ey ? (ay * ex + ax * ey) / (ay * (ay - ey)) : (ex == 0 && ey == 0 ? 0 : Double.POSITIVE_INFINITY);
                    if (!floating && p > 0) {
                        p += 1;
                    }
                }
                case MAX -> { r = Math.max(x, y); p = Math.max(ex, ey); rounds = false; }
                case MIN -> { r = Math.min(x, y); p = Math.max(ex, ey); rounds = false; }
                case REM -> {
                    r = floating ? x % y : (y == 0 ? 0 : (double) ((long) x % (long) y));
                    // the remainder jumps by |y| when the quotient's integer part changes
                    p = ex == 0 && ey == 0 ? 0 : Double.POSITIVE_INFINITY;
                    rounds = false;
                }
                // eval switched on fn.kind(), so no other function reaches here; a default, as javac does
                // not count an enum switch statement exhaustive when it checks that r and p are assigned
                default -> throw new IllegalArgumentException(fn + " is not arithmetic");
            }
            v[k] = r;
            e[k] = Double.isInfinite(r) ? 0 : rounds ? p + rounding(r, p, ax, budget) : p;
        }
        return new BoundCol(a.type(), v, e);
    }

    private BoundCol unary(Fn fn, BoundCol a) {
        double[] v = new double[n];
        double[] e = new double[n];
        boolean floating = a.type() == BoundCol.Type.FLOAT;
        MathMode.Budget budget = mode.budget(fn);
        for (int k = 0; k < n; k++) {
            double x = a.v()[k];
            double ex = a.e()[k];
            double ax = Math.abs(x);
            double r;
            double p;
            boolean rounds = true;
            switch (fn) {
                case NEG -> { r = -x; p = ex; rounds = false; }
                case ABS -> { r = ax; p = ex; rounds = false; }
                case EXP -> { r = StrictMath.exp(x); p = r * StrictMath.expm1(ex); }
                case LOG -> { r = StrictMath.log(x); p = x > ex ? -StrictMath.log1p(-ex / x) : (ex == 0 ? 0 : Double.POSITIVE_INFINITY); }
                case SQRT -> {
                    r = StrictMath.sqrt(x);
                    p = ex == 0 ? 0 : x > ex ? ex / (r + StrictMath.sqrt(x - ex)) : StrictMath.sqrt(Math.max(0, x) + ex);
                }
                case RSQRT -> {
                    r = 1 / StrictMath.sqrt(x);
                    p = ex == 0 ? 0 : x > ex ? 1 / StrictMath.sqrt(x - ex) - r : Double.POSITIVE_INFINITY;
                }
                case RECIP -> { r = 1 / x; p = ex == 0 ? 0 : ax > ex ? ex / (ax * (ax - ex)) : Double.POSITIVE_INFINITY; }
                case TANH -> {
                    r = StrictMath.tanh(x);
                    double t = StrictMath.tanh(Math.max(0, ax - ex));
                    p = Math.min(2, ex * (1 - t * t));
                }
                case SIGMOID -> {
                    r = 1 / (1 + StrictMath.exp(-x));
                    double s = 1 / (1 + StrictMath.exp(-Math.max(0, ax - ex)));
                    p = Math.min(1, ex * s * (1 - s));
                }
                case SIN -> { r = StrictMath.sin(x); p = Math.min(2, ex); }
                case COS -> { r = StrictMath.cos(x); p = Math.min(2, ex); }
                // as in arith: a switch statement, so a default keeps r and p definitely assigned
                default -> throw new IllegalArgumentException(fn + " is not unary");
            }
            v[k] = r;
            // an infinite argument or result is a special value every conforming implementation gets exactly
            e[k] = Double.isInfinite(r) || Double.isInfinite(x) ? 0 : rounds && floating ? p + rounding(r, p, ax + ex, budget) : p;
        }
        return new BoundCol(a.type(), v, e);
    }

    private BoundCol compare(Fn fn, BoundCol a, BoundCol b) {
        double[] v = new double[n];
        double[] e = new double[n];
        for (int k = 0; k < n; k++) {
            double x = a.v()[k];
            double y = b.v()[k];
            boolean r = switch (fn) {
                case EQ -> x == y;
                case NE -> x != y;
                case LT -> x < y;
                case LE -> x <= y;
                case GT -> x > y;
                case GE -> x >= y;
                case ADD, SUB, MUL, DIV, MAX, MIN, REM, NEG, ABS, EXP, LOG, SQRT, RSQRT, TANH, SIGMOID, RECIP, SIN, COS,
                     AND, OR, NOT, SELECT -> throw new IllegalArgumentException(fn + " is not a comparison");
            };
            double slack = a.e()[k] + b.e()[k];
            v[k] = r ? 1 : 0;
            // the outcome is certain only when the operands are further apart than their errors
            e[k] = slack > 0 && !(Math.abs(x - y) > slack) ? 1 : 0;
        }
        return new BoundCol(BoundCol.Type.BOOL, v, e);
    }

    private BoundCol logic(Fn fn, BoundCol a, BoundCol b) {
        double[] v = new double[n];
        double[] e = new double[n];
        for (int k = 0; k < n; k++) {
            boolean x = a.v()[k] != 0;
            boolean r = switch (fn) {
                case AND -> x && b.v()[k] != 0;
                case OR -> x || b.v()[k] != 0;
                case NOT -> !x;
                case ADD, SUB, MUL, DIV, MAX, MIN, REM, NEG, ABS, EXP, LOG, SQRT, RSQRT, TANH, SIGMOID, RECIP, SIN, COS,
                     EQ, NE, LT, LE, GT, GE, SELECT -> throw new IllegalArgumentException(fn + " is not logic");
            };
            v[k] = r ? 1 : 0;
            e[k] = Math.max(a.e()[k], b == null ? 0 : b.e()[k]);
        }
        return new BoundCol(BoundCol.Type.BOOL, v, e);
    }

    private BoundCol select(BoundCol c, BoundCol a, BoundCol b) {
        double[] v = new double[n];
        double[] e = new double[n];
        for (int k = 0; k < n; k++) {
            boolean take = c.v()[k] != 0;
            v[k] = take ? a.v()[k] : b.v()[k];
            e[k] = c.e()[k] == 0 ? (take ? a.e()[k] : b.e()[k])
                    : Math.max(a.e()[k], b.e()[k]) + Math.abs(a.v()[k] - b.v()[k]);
        }
        return new BoundCol(a.type(), v, e);
    }
}
