package org.stagecheck.interp.eval;

import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.List;
import java.util.Map;

import org.stagecheck.tensor.numeric.Rounding;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Shape;

/**
 * Evaluates a {@code Generic} expression over every element of an output shape (brief, "Stages";
 * docs/semantics.md, "Generic"). Each node is evaluated for all elements before its parent, so
 * the values are those of a per-element evaluation (every function is elementwise and pure).
 *
 * <p>FLOAT arithmetic is IEEE f32 (float64 mode: double); transcendental functions are computed
 * with {@link StrictMath} in double and rounded once to f32, identical on every JVM. INT is i32
 * with wrap-around, division truncating toward zero, division by zero a fault.
 */
final class ExprEval {
    private final RunState state;
    private final Shape out;
    private final int[] outShape;
    private final int n;
    private final List<Tensor> inputs;
    private final boolean scalar;
    private final Map<Integer, Col> inputCols = new HashMap<>();
    /** Arrays that are not this evaluation's own (see {@link #owned}), by identity. */
    private final Set<Object> borrowed = Collections.newSetFromMap(new IdentityHashMap<>());

    /**
     * @param scalar the Scalar-stage form: inputs are one-element buffers and {@code index(axis)}
     *               is meaningless
     */
    ExprEval(RunState state, Shape out, List<Tensor> inputs, boolean scalar) {
        this.state = state;
        this.out = out;
        this.outShape = out.toArray();
        this.n = (int) out.elementCount();
        this.inputs = inputs;
        this.scalar = scalar;
    }

    Col eval(Expr e) throws Fault {
        return switch (e) {
            case Expr.In in -> input(in.index());
            case Expr.FloatConst c -> floatFill(c.value());
            case Expr.IntConst c -> intFill(c.value());
            case Expr.ParamRef p -> intFill((int) state.param(p.name()));
            case Expr.Index ix -> index(ix.axis());
            case Expr.Cast c -> cast(c.dtype(), eval(c.arg()));
            case Expr.Apply a -> apply(a.fn(), a.args());
        };
    }

    private Col input(int i) throws Fault {
        if (i >= inputs.size()) {
            throw new Fault("EXPR_INPUT", "kind", null, "the expression reads in" + i + " but the stage has " + inputs.size() + " inputs.");
        }
        Col cached = inputCols.get(i);
        if (cached != null) {
            return cached;
        }
        Tensor t = inputs.get(i);
        int[] src;
        boolean identity;
        if (scalar) {
            if (t.size() != 1) {
                throw new Fault("SCALAR_INPUT", "ins/" + i, null, "a Scalar stage reads one-element buffers; in" + i + " has shape " + t.shape() + ".");
            }
            src = new int[n];
            identity = n == 1;
        } else {
            // a one-element input broadcasts like any other: numpy (and the validator) reject one of higher rank
            // than the output, e.g. [1, 1, 1] into [4]
            ShapeCache.Broadcasting b = state.shapes().broadcast(t.shape(), out, "in" + i);
            src = b.source();
            identity = b.identity();
        }
        Col c;
        if (t.dtype() == DType.I32) {
            int[] raw = t.rawInts();
            c = new Col.I(identity ? borrow(raw) : gather(raw, src));
        } else if (state.f64()) {
            double[] v;
            if (identity) {
                v = borrow(Values.doubles(t));
            } else {
                v = new double[n];
                for (int e = 0; e < n; e++) {
                    v[e] = t.getDouble(src[e]);
                }
            }
            c = new Col.D(v);
        } else {
            float[] widened = Values.floats(t);
            float[] v;
            if (identity) {
                v = borrow(widened);
            } else {
                v = new float[n];
                for (int e = 0; e < n; e++) {
                    v[e] = widened[src[e]];
                }
            }
            c = new Col.F(v);
        }
        inputCols.put(i, c);
        return c;
    }

    private int[] gather(int[] raw, int[] src) {
        int[] v = new int[n];
        for (int e = 0; e < n; e++) {
            v[e] = raw[src[e]];
        }
        return v;
    }

    /** Remembers that {@code array} belongs to an input tensor or to the shape cache: never to be written or kept. */
    private <A> A borrow(A array) {
        borrowed.add(array);
        return array;
    }

    /**
     * {@code c}, or a copy of it when its values are an input's or the cache's own array (the
     * expression is an input or an index column as it is): what a stage may keep as its output.
     */
    Col owned(Col c) {
        if (borrowed.isEmpty()) {
            return c;
        }
        return switch (c) {
            case Col.F f -> borrowed.contains(f.v()) ? new Col.F(f.v().clone()) : c;
            case Col.D d -> borrowed.contains(d.v()) ? new Col.D(d.v().clone()) : c;
            case Col.I i -> borrowed.contains(i.v()) ? new Col.I(i.v().clone()) : c;
            case Col.B b -> c;
        };
    }

    private Col floatFill(double value) {
        if (state.f64()) {
            double[] v = new double[n];
            java.util.Arrays.fill(v, value);
            return new Col.D(v);
        }
        float[] v = new float[n];
        java.util.Arrays.fill(v, (float) value);
        return new Col.F(v);
    }

    private Col intFill(int value) {
        int[] v = new int[n];
        java.util.Arrays.fill(v, value);
        return new Col.I(v);
    }

    private Col index(int axis) throws Fault {
        if (scalar || axis < 0 || axis >= outShape.length) {
            throw new Fault("EXPR_INDEX", "kind", null, "index(" + axis + ") names no axis of the output shape " + Shape.of(outShape) + ".");
        }
        return new Col.I(borrow(state.shapes().index(out, axis)));
    }

    private Col cast(DType dtype, Col c) {
        if (dtype == DType.I32) {
            int[] v = new int[n];
            switch (c) {
                case Col.F f -> { for (int e = 0; e < n; e++) v[e] = (int) f.v()[e]; }
                case Col.D d -> { for (int e = 0; e < n; e++) v[e] = (int) d.v()[e]; }
                case Col.I i -> { return i; }
                case Col.B b -> { for (int e = 0; e < n; e++) v[e] = b.v()[e] ? 1 : 0; }
            }
            return new Col.I(v);
        }
        if (state.f64()) {
            // float64 mode: a cast to a floating dtype is the identity (no rounding in the true value)
            double[] v = new double[n];
            switch (c) {
                case Col.F f -> { for (int e = 0; e < n; e++) v[e] = f.v()[e]; }
                case Col.D d -> { return d; }
                case Col.I i -> { for (int e = 0; e < n; e++) v[e] = i.v()[e]; }
                case Col.B b -> { for (int e = 0; e < n; e++) v[e] = b.v()[e] ? 1 : 0; }
            }
            return new Col.D(v);
        }
        float[] v = new float[n];
        switch (c) {
            case Col.F f -> { for (int e = 0; e < n; e++) v[e] = Rounding.roundTo(dtype, f.v()[e]); }
            case Col.D d -> { for (int e = 0; e < n; e++) v[e] = Rounding.roundTo(dtype, (float) d.v()[e]); }
            case Col.I i -> { for (int e = 0; e < n; e++) v[e] = Rounding.roundTo(dtype, (float) i.v()[e]); }
            case Col.B b -> { for (int e = 0; e < n; e++) v[e] = b.v()[e] ? 1f : 0f; }
        }
        return new Col.F(v);
    }

    private Col apply(Fn fn, List<Expr> args) throws Fault {
        Col a = eval(args.get(0));
        return switch (fn.kind()) {
            case ARITH -> ExprFns.arith(fn, a, eval(args.get(1)), n);
            case NUMERIC_UNARY -> ExprFns.numericUnary(fn, a, n);
            case FLOAT_UNARY -> ExprFns.floatUnary(fn, a, n);
            case COMPARE -> ExprFns.compare(fn, a, eval(args.get(1)), n);
            case LOGIC -> ExprFns.logic(fn, a, fn.arity() == 2 ? eval(args.get(1)) : null, n);
            case SELECT -> ExprFns.select(a, eval(args.get(1)), eval(args.get(2)), n);
        };
    }
}
