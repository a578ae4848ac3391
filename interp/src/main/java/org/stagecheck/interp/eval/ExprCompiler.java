package org.stagecheck.interp.eval;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.stagecheck.backend.FaultCode;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.rules.Rule;

/**
 * Compiles a {@code Generic} expression (or a {@code Scalar} result) for one output shape and one
 * list of inputs into a {@link CompiledExpr} (docs/semantics.md, "Generic"). The nodes are
 * emitted in the order the per-element definition evaluates them (arguments left to right, then
 * the node; an input read once, at its first use), each with its value type, its broadcast and
 * its working column decided here.
 *
 * <p>Columns are allocated like registers: a node's arguments give their columns back once it is
 * emitted, and the node may take one of them for its result (every kernel reads element e before
 * writing it), so a chain of any length needs two columns of its type. Inputs and {@code index}
 * columns are never given back (they may be read again, or are not the evaluation's own).
 *
 * <p>A fault that the shapes and types already decide (EXPR_TYPE,
 * SCALAR_SHAPE, BROADCAST) becomes a step that raises it where evaluation would meet it,
 * so a run faults in the same place, with the same fault, as the per-element definition.
 */
final class ExprCompiler {
    /**
     * A compiled node's value: its slot, type, whether its column may be reused once consumed,
     * and whether it is uniform (the same at every element, so only element 0 is computed).
     */
    private record Value(int slot, ColType type, boolean temporary, boolean uniform) {
        Value(int slot, ColType type, boolean temporary) {
            this(slot, type, temporary, false);
        }

        Value asUniform() {
            return new Value(slot, type, temporary, true);
        }
    }

    /** Ends compilation at a {@link CompiledExpr.Fail} step: nothing after it can run. */
    private static final class Stop extends Exception {
        Stop() {
            super(null, null, false, false);
        }
    }

    private final Shape out;
    private final int[] outDims;
    private final List<Tensor> inputs;
    private final ShapeCache shapes;
    private final boolean f64;
    private final boolean scalar;
    private final List<CompiledExpr.Step> steps = new ArrayList<>();
    private final List<ColType> slotTypes = new ArrayList<>();
    /** Per slot, whether its column comes from the scratch (index columns do not). */
    private final List<Boolean> scratchSlots = new ArrayList<>();
    private final Map<ColType, ArrayDeque<Integer>> free = new EnumMap<>(ColType.class);
    private final Map<Integer, Value> inputValues = new HashMap<>();

    private ExprCompiler(Shape out, List<Tensor> inputs, ShapeCache shapes, boolean f64, boolean scalar) {
        this.out = out;
        this.outDims = out.toArray();
        this.inputs = inputs;
        this.shapes = shapes;
        this.f64 = f64;
        this.scalar = scalar;
    }

    /**
     * @param scalar the Scalar-stage form: inputs are one-element buffers and {@code index(axis)}
     *               is meaningless
     */
    static CompiledExpr compile(Expr e, Shape out, List<Tensor> inputs, ShapeCache shapes, boolean f64, boolean scalar) {
        ExprCompiler c = new ExprCompiler(out, inputs, shapes, f64, scalar);
        Value root;
        try {
            root = c.node(e);
            if (root.uniform()) {
                root = c.spread(root)[0];
            }
        } catch (Stop stop) {
            root = null;
        }
        int slots = c.slotTypes.size();
        ColType[] types = c.slotTypes.toArray(ColType[]::new);
        int[] ordinals = new int[slots];
        Map<ColType, Integer> counts = new EnumMap<>(ColType.class);
        for (int s = 0; s < slots; s++) {
            if (c.scratchSlots.get(s)) {
                int k = counts.merge(types[s], 1, Integer::sum) - 1;
                ordinals[s] = k;
            } else {
                ordinals[s] = -1;
            }
        }
        List<Shape> inShapes = inputs.stream().map(Tensor::shape).toList();
        List<DType> inTypes = inputs.stream().map(Tensor::dtype).toList();
        return new CompiledExpr(c.steps, types, ordinals, root == null ? -1 : root.slot(),
                root == null ? ColType.F : root.type(), out, inShapes, inTypes, f64);
    }

    private ColType floatType() {
        return f64 ? ColType.D : ColType.F;
    }

    private int newSlot(ColType type, boolean fromScratch) {
        slotTypes.add(type);
        scratchSlots.add(fromScratch);
        return slotTypes.size() - 1;
    }

    /** A working column of {@code type}: one given back earlier, or a new one. */
    private Value temporary(ColType type) {
        ArrayDeque<Integer> f = free.get(type);
        int slot = f == null || f.isEmpty() ? newSlot(type, true) : f.pop();
        return new Value(slot, type, true);
    }

    private void release(Value... consumed) {
        for (Value v : consumed) {
            if (v != null && v.temporary()) {
                free.computeIfAbsent(v.type(), t -> new ArrayDeque<>()).push(v.slot());
            }
        }
    }

    /** Adds a step; a uniform one computes element 0 only. */
    private void emit(CompiledExpr.Step step, boolean uniform) {
        steps.add(uniform ? new CompiledExpr.Uniform(step) : step);
    }

    /** Whether every argument is uniform: then so is the node's value. */
    private static boolean allUniform(Value... args) {
        for (Value v : args) {
            if (v != null && !v.uniform()) {
                return false;
            }
        }
        return true;
    }

    /**
     * The arguments of a node that is not uniform, each uniform one spread over the whole shape
     * (its element-0 column given back); the others as they are.
     */
    private Value[] spread(Value... args) {
        Value[] out = new Value[args.length];
        for (int i = 0; i < args.length; i++) {
            Value v = args[i];
            if (v == null || !v.uniform()) {
                out[i] = v;
                continue;
            }
            release(v);
            Value full = temporary(v.type());
            steps.add(new CompiledExpr.Fill(v.type(), full.slot(), v.slot()));
            out[i] = full;
        }
        return out;
    }

    private Stop fail(Fault f) {
        steps.add(new CompiledExpr.Fail(f));
        return new Stop();
    }

    private Stop typeFault(Fn fn, Value a, Value b) {
        return fail(new Fault(Rule.EXPR_TYPE, "kind", null, fn.spelling() + " cannot take " + a.type().typeName()
                + (b == null ? "" : " and " + b.type().typeName()) + "."));
    }

    private Value node(Expr e) throws Stop {
        return switch (e) {
            case Expr.In in -> input(in.index());
            case Expr.FloatConst c -> {
                Value v = temporary(floatType());
                emit(f64 ? new CompiledExpr.DoubleConst(v.slot(), c.value())
                        : new CompiledExpr.FloatConst(v.slot(), (float) c.value()), true);
                yield v.asUniform();
            }
            case Expr.IntConst c -> {
                Value v = temporary(ColType.I);
                emit(new CompiledExpr.IntConst(v.slot(), c.value()), true);
                yield v.asUniform();
            }
            case Expr.ParamRef p -> {
                Value v = temporary(ColType.I);
                emit(new CompiledExpr.Param(v.slot(), p.name()), true);
                yield v.asUniform();
            }
            case Expr.Index ix -> index(ix.axis());
            case Expr.Cast c -> cast(c.dtype(), node(c.arg()));
            case Expr.Apply a -> apply(a.fn(), a.args());
        };
    }

    private Value input(int i) throws Stop {
        Value known = inputValues.get(i);
        if (known != null) {
            return known;
        }
        if (i >= inputs.size()) {
            throw fail(new Fault(Rule.EXPR_TYPE, "kind", null, "the expression reads in" + i + " but the stage has "
                    + inputs.size() + " inputs."));
        }
        Tensor t = inputs.get(i);
        int n = (int) out.elementCount();
        int[] gather;
        boolean broadcastOne;
        if (scalar) {
            if (t.size() != 1) {
                throw fail(new Fault(Rule.SCALAR_SHAPE, "ins/" + i, null, "a Scalar stage reads one-element buffers; in" + i
                        + " has shape " + t.shape() + "."));
            }
            gather = null;
            broadcastOne = n != 1;
        } else {
            // a one-element input broadcasts like any other: numpy (and the validator) reject one of higher rank
            // than the output, e.g. [1, 1, 1] into [4]
            ShapeCache.Broadcasting b;
            try {
                b = shapes.broadcast(t.shape(), out, "in" + i);
            } catch (Fault f) {
                throw fail(f);
            }
            broadcastOne = !b.identity() && t.size() == 1;
            gather = b.identity() || broadcastOne ? null : b.source();
        }
        ColType type = t.dtype() == DType.I32 ? ColType.I : floatType();
        Value v = new Value(newSlot(type, true), type, false, broadcastOne);
        emit(new CompiledExpr.Input(v.slot(), i, type, gather, broadcastOne), broadcastOne);
        inputValues.put(i, v);
        return v;
    }

    private Value index(int axis) throws Stop {
        if (scalar || axis < 0 || axis >= outDims.length) {
            throw fail(new Fault(Rule.EXPR_TYPE, "kind", null, "index(" + axis + ") names no axis of the output shape "
                    + Shape.of(outDims) + "."));
        }
        Value v = new Value(newSlot(ColType.I, false), ColType.I, false);
        steps.add(new CompiledExpr.Index(v.slot(), shapes.index(out, axis)));
        return v;
    }

    private Value cast(DType dtype, Value a) {
        ColType to = dtype == DType.I32 ? ColType.I : floatType();
        if (a.type() == to && (to == ColType.I || to == ColType.D)) {
            return a; // to i32 from INT, or to a floating dtype in float64 mode: the value itself
        }
        release(a);
        Value v = temporary(to);
        emit(new CompiledExpr.Cast(v.slot(), a.slot(), a.type(), to, dtype), a.uniform());
        return a.uniform() ? v.asUniform() : v;
    }

    private Value apply(Fn fn, List<Expr> args) throws Stop {
        Value a = node(args.get(0));
        return switch (fn.kind()) {
            case ARITH -> {
                Value b = node(args.get(1));
                if (a.type() != b.type() || a.type() == ColType.B) {
                    throw typeFault(fn, a, b);
                }
                yield result(a.type(), (v, x) -> new CompiledExpr.Arith(fn, a.type(), v, x[0], x[1]), a, b);
            }
            case NUMERIC_UNARY -> {
                if (a.type() == ColType.B) {
                    throw typeFault(fn, a, null);
                }
                yield result(a.type(), (v, x) -> new CompiledExpr.NumericUnary(fn, a.type(), v, x[0]), a);
            }
            case FLOAT_UNARY -> {
                if (a.type() != floatType()) {
                    throw typeFault(fn, a, null);
                }
                yield result(a.type(), (v, x) -> new CompiledExpr.FloatUnary(fn, a.type(), v, x[0]), a);
            }
            case COMPARE -> {
                Value b = node(args.get(1));
                if (a.type() != b.type() || a.type() == ColType.B) {
                    throw typeFault(fn, a, b);
                }
                yield result(ColType.B, (v, x) -> new CompiledExpr.Compare(fn, a.type(), v, x[0], x[1]), a, b);
            }
            case LOGIC -> {
                Value b = fn.arity() == 2 ? node(args.get(1)) : null;
                if (a.type() != ColType.B || (b != null && b.type() != ColType.B)) {
                    throw typeFault(fn, a, b);
                }
                yield b == null ? result(ColType.B, (v, x) -> new CompiledExpr.Logic(fn, v, x[0], -1), a)
                        : result(ColType.B, (v, x) -> new CompiledExpr.Logic(fn, v, x[0], x[1]), a, b);
            }
            case SELECT -> {
                Value x = node(args.get(1));
                Value y = node(args.get(2));
                if (a.type() != ColType.B) {
                    throw typeFault(Fn.SELECT, a, null);
                }
                if (x.type() != y.type()) {
                    throw typeFault(Fn.SELECT, x, y);
                }
                yield result(x.type(), (v, s) -> new CompiledExpr.Select(x.type(), v, s[0], s[1], s[2]), a, x, y);
            }
        };
    }

    /** Makes a node's step from its result slot and its arguments' slots. */
    private interface StepMaker {
        CompiledExpr.Step make(int out, int[] args);
    }

    /**
     * The node over {@code args}: uniform (element 0 only) when every argument is, else over
     * the whole shape with its uniform arguments spread first; the arguments' columns are given
     * back and the result may take one of them.
     */
    private Value result(ColType type, StepMaker maker, Value... args) {
        boolean uniform = allUniform(args);
        Value[] used = uniform ? args : spread(args);
        release(used);
        Value v = temporary(type);
        int[] slots = new int[used.length];
        for (int i = 0; i < used.length; i++) {
            slots[i] = used[i].slot();
        }
        emit(maker.make(v.slot(), slots), uniform);
        return uniform ? v.asUniform() : v;
    }
}
