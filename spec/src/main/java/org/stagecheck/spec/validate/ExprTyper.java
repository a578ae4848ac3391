package org.stagecheck.spec.validate;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.ValueType;

/**
 * The type rules of the {@code Generic} algebra (docs/format.md, "Expressions"): arithmetic and
 * comparisons need two operands of one numeric type (no implicit int/float mixing: write a cast),
 * transcendental functions take FLOAT, logic takes BOOL, {@code select} a BOOL condition and two
 * branches of one type, a cast accepts any type. Element indices exist only where
 * {@code indexRank >= 0} (Generic ops, not Scalar bodies).
 */
public final class ExprTyper {
    private final List<ValueType> inputs;
    private final Set<String> params;
    private final int indexRank;

    /**
     * @param inputs    the value type of each input port
     * @param params    the program's parameter names
     * @param indexRank the output rank for {@code index(axis)}, or -1 where indices are not allowed
     */
    public ExprTyper(List<ValueType> inputs, Set<String> params, int indexRank) {
        this.inputs = List.copyOf(inputs);
        this.params = Set.copyOf(params);
        this.indexRank = indexRank;
    }

    /** The expression's type, or a {@link TypeError} naming the first offending sub-expression. */
    public ValueType type(Expr e) throws TypeError {
        return type(e, null);
    }

    /**
     * The type of every node of the expression, by identity (equal sub-expressions at two places
     * are two entries), in one pass; a {@link TypeError} as {@link #type(Expr)} gives it.
     */
    public Map<Expr, ValueType> typesOf(Expr e) throws TypeError {
        Map<Expr, ValueType> types = new IdentityHashMap<>();
        type(e, types);
        return types;
    }

    private ValueType type(Expr e, Map<Expr, ValueType> record) throws TypeError {
        ValueType t = typeOfNode(e, record);
        if (record != null) {
            record.put(e, t);
        }
        return t;
    }

    private ValueType typeOfNode(Expr e, Map<Expr, ValueType> record) throws TypeError {
        return switch (e) {
            case Expr.In in -> {
                if (in.index() >= inputs.size()) {
                    throw new TypeError("in" + in.index() + " names input " + in.index() + " but the stage has " + inputs.size() + " input(s)");
                }
                yield inputs.get(in.index());
            }
            case Expr.FloatConst c -> ValueType.FLOAT;
            case Expr.IntConst c -> ValueType.INT;
            case Expr.ParamRef p -> {
                if (!params.contains(p.name())) {
                    throw new TypeError("param(" + p.name() + ") names no declared parameter");
                }
                yield ValueType.INT;
            }
            case Expr.Index ix -> {
                if (indexRank < 0) {
                    throw new TypeError("index(" + ix.axis() + ") has no meaning in a scalar body");
                }
                if (ix.axis() >= indexRank) {
                    throw new TypeError("index(" + ix.axis() + ") is past the output's rank " + indexRank);
                }
                yield ValueType.INT;
            }
            case Expr.Cast c -> {
                type(c.arg(), record);
                yield ValueType.of(c.dtype());
            }
            case Expr.Apply a -> apply(a, record);
        };
    }

    private ValueType apply(Expr.Apply a, Map<Expr, ValueType> record) throws TypeError {
        Fn fn = a.fn();
        ValueType[] t = new ValueType[a.args().size()];
        for (int i = 0; i < t.length; i++) {
            t[i] = type(a.args().get(i), record);
        }
        // printed only for a message: printing every node of a nest was quadratic in its depth
        Where where = new Where(a);
        return switch (fn.kind()) {
            case ARITH -> {
                numeric(t[0], where);
                same(t[0], t[1], where);
                yield t[0];
            }
            case NUMERIC_UNARY -> {
                numeric(t[0], where);
                yield t[0];
            }
            case FLOAT_UNARY -> {
                if (t[0] != ValueType.FLOAT) {
                    throw new TypeError(fn.spelling() + " needs a FLOAT argument, found " + t[0] + " in " + where + " (cast with f32(...))");
                }
                yield ValueType.FLOAT;
            }
            case COMPARE -> {
                numeric(t[0], where);
                same(t[0], t[1], where);
                yield ValueType.BOOL;
            }
            case LOGIC -> {
                for (ValueType v : t) {
                    if (v != ValueType.BOOL) {
                        throw new TypeError(fn.spelling() + " needs BOOL arguments, found " + v + " in " + where);
                    }
                }
                yield ValueType.BOOL;
            }
            case SELECT -> {
                if (t[0] != ValueType.BOOL) {
                    throw new TypeError("select needs a BOOL condition, found " + t[0] + " in " + where);
                }
                same(t[1], t[2], where);
                yield t[1];
            }
        };
    }

    /** The expression a message names, printed when the message is made. */
    private record Where(Expr.Apply at) {
        @Override
        public String toString() {
            return Expr.print(at);
        }
    }

    private static void numeric(ValueType t, Where where) throws TypeError {
        if (t == ValueType.BOOL) {
            throw new TypeError("a BOOL is not a number in " + where + " (cast with i32(...) or f32(...))");
        }
    }

    private static void same(ValueType a, ValueType b, Where where) throws TypeError {
        if (a != b) {
            throw new TypeError("operands of different types " + a + " and " + b + " in " + where + " (write an explicit cast)");
        }
    }

    /** A type error, with a message that names the sub-expression. */
    public static final class TypeError extends Exception {
        public TypeError(String message) {
            super(message);
        }
    }
}
