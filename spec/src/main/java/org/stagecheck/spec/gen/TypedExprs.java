package org.stagecheck.spec.gen;

import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.ValueType;

/**
 * Random expressions of the {@code Generic} algebra that type-check by construction (brief,
 * "Stages"; the typing rules of {@code Fn.Kind}): arithmetic and comparisons on two operands of one
 * numeric type, transcendental functions on FLOAT, logic on BOOL, {@code select} with a BOOL
 * condition, casts wherever a type changes. Integer division and remainder get a divisor of
 * {@code max(abs(d), 1)}, so no generated program divides an integer by zero.
 */
final class TypedExprs {
    private static final Fn[] ARITH = {Fn.ADD, Fn.SUB, Fn.MUL, Fn.DIV, Fn.MAX, Fn.MIN, Fn.REM};
    private static final Fn[] FLOAT_UNARY = {Fn.EXP, Fn.LOG, Fn.SQRT, Fn.RSQRT, Fn.TANH, Fn.SIGMOID, Fn.RECIP, Fn.SIN, Fn.COS};
    private static final Fn[] NUMERIC_UNARY = {Fn.NEG, Fn.ABS};
    private static final Fn[] COMPARE = {Fn.EQ, Fn.NE, Fn.LT, Fn.LE, Fn.GT, Fn.GE};
    private static final DType[] FLOAT_DTYPES = {DType.F32, DType.BF16, DType.F16, DType.E4M3, DType.E5M2};

    private final RandomGenerator rnd;
    private final DType[] castFloats;
    private final DType toFloat;
    private final boolean castToInt;
    private final List<ValueType> inputs;
    private final List<String> params;
    private final int indexRank;

    /**
     * @param inputs    value type of each input port ({@code in0}, {@code in1}, ...)
     * @param params    parameter names a {@code param(...)} leaf may read
     * @param indexRank output rank for {@code index(axis)} leaves; 0 or less for none (scalar bodies)
     */
    TypedExprs(RandomGenerator rnd, List<ValueType> inputs, List<String> params, int indexRank) {
        this(rnd, inputs, params, indexRank, FLOAT_DTYPES, true);
    }

    /**
     * Expressions whose casts stay inside the allowed dtypes: a float cast goes to one of
     * {@code castFloats} (an int becomes a float through f32 when it is among them, else through
     * the first), and a cast to i32 appears only when {@code castToInt}.
     */
    TypedExprs(RandomGenerator rnd, List<ValueType> inputs, List<String> params, int indexRank, DType[] castFloats, boolean castToInt) {
        this.rnd = rnd;
        this.castFloats = castFloats.clone();
        this.toFloat = List.of(castFloats).contains(DType.F32) ? DType.F32 : castFloats[0];
        this.castToInt = castToInt;
        this.inputs = List.copyOf(inputs);
        this.params = List.copyOf(params);
        this.indexRank = indexRank;
    }

    /** A random expression of type {@code type} at most about {@code depth} applications deep, reading every input. */
    Expr usingAllInputs(ValueType type, int depth) {
        Expr e = of(type, depth);
        boolean[] used = new boolean[inputs.size()];
        markInputs(e, used);
        for (int i = 0; i < used.length; i++) {
            if (!used[i]) {
                Expr in = convert(Expr.in(i), inputs.get(i), type == ValueType.BOOL ? ValueType.INT : type);
                e = switch (type) {
                    case FLOAT, INT -> Expr.apply(Fn.ADD, e, in);
                    case BOOL -> Expr.apply(Fn.OR, e, Expr.apply(Fn.GT, in, Expr.i(0)));
                };
            }
        }
        return e;
    }

    Expr of(ValueType type, int depth) {
        if (depth <= 0 || rnd.nextInt(4) == 0) {
            return leaf(type);
        }
        int d = depth - 1;
        return switch (type) {
            case FLOAT -> switch (rnd.nextInt(5)) {
                case 0 -> Expr.apply(pick(FLOAT_UNARY), of(ValueType.FLOAT, d));
                case 1 -> Expr.apply(pick(NUMERIC_UNARY), of(ValueType.FLOAT, d));
                case 2 -> Expr.apply(Fn.SELECT, of(ValueType.BOOL, d), of(ValueType.FLOAT, d), of(ValueType.FLOAT, d));
                case 3 -> new Expr.Cast(pick(castFloats), of(anyType(), d));
                // the remaining draw of nextInt(5), 4
                default -> arith(ValueType.FLOAT, d);
            };
            case INT -> switch (rnd.nextInt(4)) {
                case 0 -> Expr.apply(pick(NUMERIC_UNARY), of(ValueType.INT, d));
                case 1 -> Expr.apply(Fn.SELECT, of(ValueType.BOOL, d), of(ValueType.INT, d), of(ValueType.INT, d));
                case 2 -> castToInt ? new Expr.Cast(DType.I32, of(rnd.nextBoolean() ? ValueType.FLOAT : ValueType.BOOL, d))
                        : arith(ValueType.INT, d);
                // the remaining draw of nextInt(4), 3
                default -> arith(ValueType.INT, d);
            };
            case BOOL -> switch (rnd.nextInt(3)) {
                case 0 -> Expr.apply(Fn.NOT, of(ValueType.BOOL, d));
                case 1 -> Expr.apply(rnd.nextBoolean() ? Fn.AND : Fn.OR, of(ValueType.BOOL, d), of(ValueType.BOOL, d));
                // the remaining draw of nextInt(3), 2
                default -> {
                    ValueType t = rnd.nextBoolean() ? ValueType.FLOAT : ValueType.INT;
                    yield Expr.apply(pick(COMPARE), of(t, d), of(t, d));
                }
            };
        };
    }

    private Expr arith(ValueType t, int d) {
        Fn fn = pick(ARITH);
        Expr right = of(t, d);
        if (t == ValueType.INT && (fn == Fn.DIV || fn == Fn.REM)) {
            right = Expr.apply(Fn.MAX, Expr.apply(Fn.ABS, right), Expr.i(1));
        }
        return Expr.apply(fn, of(t, d), right);
    }

    private Expr leaf(ValueType type) {
        List<Integer> candidates = new ArrayList<>();
        for (int i = 0; i < inputs.size(); i++) {
            if (inputs.get(i) == type) {
                candidates.add(i);
            }
        }
        if (!candidates.isEmpty() && rnd.nextInt(3) != 0) {
            return Expr.in(candidates.get(rnd.nextInt(candidates.size())));
        }
        return switch (type) {
            case FLOAT -> rnd.nextInt(4) == 0
                    ? new Expr.Cast(toFloat, leaf(ValueType.INT))
                    : Expr.f(rnd.nextInt(-16, 17) / 4.0);
            case INT -> switch (rnd.nextInt(3)) {
                case 0 -> params.isEmpty() ? Expr.i(rnd.nextInt(-8, 9)) : new Expr.ParamRef(params.get(rnd.nextInt(params.size())));
                case 1 -> indexRank > 0 ? new Expr.Index(rnd.nextInt(indexRank)) : Expr.i(rnd.nextInt(-8, 9));
                // the remaining draw of nextInt(3), 2
                default -> Expr.i(rnd.nextInt(-8, 9));
            };
            case BOOL -> Expr.apply(Fn.LT, leaf(ValueType.INT), leaf(ValueType.INT));
        };
    }

    private ValueType anyType() {
        return ValueType.values()[rnd.nextInt(ValueType.values().length)];
    }

    private <T> T pick(T[] options) {
        return options[rnd.nextInt(options.length)];
    }

    /** {@code e} of type {@code from} as a value of numeric type {@code to}. */
    private Expr convert(Expr e, ValueType from, ValueType to) {
        if (from == to) {
            return e;
        }
        return new Expr.Cast(to == ValueType.FLOAT ? toFloat : DType.I32, e);
    }

    private static void markInputs(Expr e, boolean[] used) {
        switch (e) {
            case Expr.In in -> {
                if (in.index() < used.length) {
                    used[in.index()] = true;
                }
            }
            case Expr.Apply a -> a.args().forEach(x -> markInputs(x, used));
            case Expr.Cast c -> markInputs(c.arg(), used);
            case Expr.FloatConst c -> { }
            case Expr.IntConst c -> { }
            case Expr.ParamRef p -> { }
            case Expr.Index ix -> { }
        }
    }
}
