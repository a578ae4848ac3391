package org.stagecheck.interp.eval;

import java.util.Arrays;
import java.util.List;

import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.numeric.Rounding;

/**
 * A {@code Generic} (or {@code Scalar} result) expression compiled once for one output shape and
 * one list of input shapes and dtypes ({@link ExprCompiler}): its nodes in evaluation order (each
 * node's arguments before it, left to right, as the per-element definition evaluates them), each
 * a column kernel that fills its own working column ({@link Scratch}) for every element. Types,
 * broadcasts and the column of every node are decided at compile time, so a run dispatches once
 * per node, not per element, boxes nothing and allocates nothing but the stage's outputs.
 *
 * <p>Immutable and shared by the runs of a prepared program (concurrent ones included): the
 * working columns are the caller's {@link Scratch}.
 */
final class CompiledExpr {
    /** One node: fills column {@code out} of the frame from earlier columns (or faults). */
    sealed interface Step {
        void run(Frame f) throws Fault;
    }

    /** The columns of one evaluation, by slot, and what the nodes read from the run; {@code n} elements per column. */
    record Frame(Object[] cols, List<Tensor> ins, RunState state, int n) {
        /** The same columns, of which a step reads and writes only the first element. */
        Frame first() {
            return new Frame(cols, ins, state, Math.min(1, n));
        }
    }

    /**
     * A node whose value is the same at every element (a constant, a parameter, a one-element
     * input, or a function of such values only): computed once, at element 0, instead of for
     * every element; {@link Fill} spreads it where a node of the whole shape reads it.
     */
    record Uniform(Step step) implements Step {
        @Override
        public void run(Frame f) throws Fault {
            step.run(f.first());
        }
    }

    /** Column {@code out} = element 0 of column {@code from}, at every element. */
    record Fill(ColType type, int out, int from) implements Step {
        @Override
        public void run(Frame f) {
            Object[] c = f.cols();
            int n = f.n();
            if (n == 0) {
                return; // an empty shape: there is no element 0
            }
            switch (type) {
                case F -> Arrays.fill((float[]) c[out], 0, n, ((float[]) c[from])[0]);
                case D -> Arrays.fill((double[]) c[out], 0, n, ((double[]) c[from])[0]);
                case I -> Arrays.fill((int[]) c[out], 0, n, ((int[]) c[from])[0]);
                case B -> Arrays.fill((boolean[]) c[out], 0, n, ((boolean[]) c[from])[0]);
            }
        }
    }

    /** Input {@code index} into {@code out}: the tensor's own array when it needs no change, else widened/gathered. */
    record Input(int out, int index, ColType type, int[] gather, boolean broadcastOne) implements Step {
        @Override
        public void run(Frame f) {
            Tensor t = f.ins().get(index);
            int n = f.n();
            switch (type) {
                case F -> {
                    float[] raw = t.rawFloats();
                    if (gather == null && !broadcastOne && raw != null) {
                        f.cols()[out] = raw; // read only: the input tensor's own values
                        return;
                    }
                    float[] v = (float[]) f.cols()[out];
                    short[] bits = t.rawBits16();
                    if (broadcastOne) {
                        Arrays.fill(v, 0, n, t.getFloat(0));
                    } else if (raw != null) {
                        for (int e = 0; e < n; e++) v[e] = raw[gather[e]];
                    } else if (bits != null && t.dtype() == DType.BF16) {
                        for (int e = 0; e < n; e++) v[e] = Float.intBitsToFloat((bits[gather == null ? e : gather[e]] & 0xFFFF) << 16);
                    } else {
                        for (int e = 0; e < n; e++) v[e] = t.getFloat(gather == null ? e : gather[e]);
                    }
                }
                case D -> {
                    double[] raw = t.rawDoubles();
                    if (gather == null && !broadcastOne && raw != null) {
                        f.cols()[out] = raw;
                        return;
                    }
                    double[] v = (double[]) f.cols()[out];
                    for (int e = 0; e < n; e++) v[e] = t.getDouble(broadcastOne ? 0 : gather == null ? e : gather[e]);
                }
                case I -> {
                    int[] raw = t.rawInts();
                    if (gather == null && !broadcastOne) {
                        f.cols()[out] = raw;
                        return;
                    }
                    int[] v = (int[]) f.cols()[out];
                    if (broadcastOne) {
                        Arrays.fill(v, 0, n, raw[0]);
                    } else {
                        for (int e = 0; e < n; e++) v[e] = raw[gather[e]];
                    }
                }
                case B -> throw new IllegalStateException("no input is BOOL");
            }
        }
    }

    record FloatConst(int out, float value) implements Step {
        @Override
        public void run(Frame f) {
            Arrays.fill((float[]) f.cols()[out], 0, f.n(), value);
        }
    }

    record DoubleConst(int out, double value) implements Step {
        @Override
        public void run(Frame f) {
            Arrays.fill((double[]) f.cols()[out], 0, f.n(), value);
        }
    }

    record IntConst(int out, int value) implements Step {
        @Override
        public void run(Frame f) {
            Arrays.fill((int[]) f.cols()[out], 0, f.n(), value);
        }
    }

    /** {@code param(name)}: INT, read from this run's parameters. */
    record Param(int out, String name) implements Step {
        @Override
        public void run(Frame f) throws Fault {
            Arrays.fill((int[]) f.cols()[out], 0, f.n(), (int) f.state().param(name));
        }
    }

    /** {@code index(axis)}: the shape cache's read-only column. */
    record Index(int out, int[] values) implements Step {
        @Override
        public void run(Frame f) {
            f.cols()[out] = values;
        }
    }

    record Cast(int out, int arg, ColType from, ColType to, DType dtype) implements Step {
        @Override
        public void run(Frame f) {
            Object x = f.cols()[arg];
            Object v = f.cols()[out];
            int n = f.n();
            switch (to) {
                case I -> {
                    int[] o = (int[]) v;
                    switch (from) {
                        case F -> { float[] a = (float[]) x; for (int e = 0; e < n; e++) o[e] = (int) a[e]; }
                        case D -> { double[] a = (double[]) x; for (int e = 0; e < n; e++) o[e] = (int) a[e]; }
                        case B -> { boolean[] a = (boolean[]) x; for (int e = 0; e < n; e++) o[e] = a[e] ? 1 : 0; }
                        case I -> throw new IllegalStateException("an INT cast to i32 is its argument");
                    }
                }
                case D -> {
                    // float64 mode: a cast to a floating dtype is the identity (no rounding in the true value)
                    double[] o = (double[]) v;
                    switch (from) {
                        case F -> { float[] a = (float[]) x; for (int e = 0; e < n; e++) o[e] = a[e]; }
                        case I -> { int[] a = (int[]) x; for (int e = 0; e < n; e++) o[e] = a[e]; }
                        case B -> { boolean[] a = (boolean[]) x; for (int e = 0; e < n; e++) o[e] = a[e] ? 1 : 0; }
                        case D -> throw new IllegalStateException("a FLOAT cast in float64 mode is its argument");
                    }
                }
                case F -> {
                    float[] o = (float[]) v;
                    switch (from) {
                        case F -> { float[] a = (float[]) x; for (int e = 0; e < n; e++) o[e] = Rounding.roundTo(dtype, a[e]); }
                        case D -> { double[] a = (double[]) x; for (int e = 0; e < n; e++) o[e] = Rounding.roundTo(dtype, (float) a[e]); }
                        case I -> { int[] a = (int[]) x; for (int e = 0; e < n; e++) o[e] = Rounding.roundTo(dtype, (float) a[e]); }
                        case B -> { boolean[] a = (boolean[]) x; for (int e = 0; e < n; e++) o[e] = a[e] ? 1f : 0f; }
                    }
                }
                case B -> throw new IllegalStateException("no cast gives BOOL");
            }
        }
    }

    record Arith(Fn fn, ColType type, int out, int x, int y) implements Step {
        @Override
        public void run(Frame f) throws Fault {
            Object[] c = f.cols();
            switch (type) {
                case F -> ExprFns.arith(fn, (float[]) c[x], (float[]) c[y], (float[]) c[out], f.n());
                case D -> ExprFns.arith(fn, (double[]) c[x], (double[]) c[y], (double[]) c[out], f.n());
                case I -> ExprFns.arith(fn, (int[]) c[x], (int[]) c[y], (int[]) c[out], f.n());
                case B -> throw new IllegalStateException("no arithmetic on BOOL");
            }
        }
    }

    record NumericUnary(Fn fn, ColType type, int out, int x) implements Step {
        @Override
        public void run(Frame f) {
            Object[] c = f.cols();
            switch (type) {
                case F -> ExprFns.numericUnary(fn, (float[]) c[x], (float[]) c[out], f.n());
                case D -> ExprFns.numericUnary(fn, (double[]) c[x], (double[]) c[out], f.n());
                case I -> ExprFns.numericUnary(fn, (int[]) c[x], (int[]) c[out], f.n());
                case B -> throw new IllegalStateException("no numeric function of BOOL");
            }
        }
    }

    record FloatUnary(Fn fn, ColType type, int out, int x) implements Step {
        @Override
        public void run(Frame f) {
            Object[] c = f.cols();
            switch (type) {
                case F -> ExprFns.floatUnary(fn, (float[]) c[x], (float[]) c[out], f.n());
                case D -> ExprFns.floatUnary(fn, (double[]) c[x], (double[]) c[out], f.n());
                case I, B -> throw new IllegalStateException("float functions take FLOAT");
            }
        }
    }

    /** A comparison of two columns of {@code type}, into a BOOL column. */
    record Compare(Fn fn, ColType type, int out, int x, int y) implements Step {
        @Override
        public void run(Frame f) {
            Object[] c = f.cols();
            boolean[] v = (boolean[]) c[out];
            switch (type) {
                case F -> ExprFns.compare(fn, (float[]) c[x], (float[]) c[y], v, f.n());
                case D -> ExprFns.compare(fn, (double[]) c[x], (double[]) c[y], v, f.n());
                case I -> ExprFns.compare(fn, (int[]) c[x], (int[]) c[y], v, f.n());
                case B -> throw new IllegalStateException("BOOL values are not compared");
            }
        }
    }

    /** AND, OR or NOT ({@code y} is -1). */
    record Logic(Fn fn, int out, int x, int y) implements Step {
        @Override
        public void run(Frame f) {
            Object[] c = f.cols();
            ExprFns.logic(fn, (boolean[]) c[x], y < 0 ? null : (boolean[]) c[y], (boolean[]) c[out], f.n());
        }
    }

    record Select(ColType type, int out, int cond, int x, int y) implements Step {
        @Override
        public void run(Frame f) {
            Object[] c = f.cols();
            boolean[] w = (boolean[]) c[cond];
            switch (type) {
                case F -> ExprFns.select(w, (float[]) c[x], (float[]) c[y], (float[]) c[out], f.n());
                case D -> ExprFns.select(w, (double[]) c[x], (double[]) c[y], (double[]) c[out], f.n());
                case I -> ExprFns.select(w, (int[]) c[x], (int[]) c[y], (int[]) c[out], f.n());
                case B -> ExprFns.select(w, (boolean[]) c[x], (boolean[]) c[y], (boolean[]) c[out], f.n());
            }
        }
    }

    /**
     * A fault the compiler found (a type error, an input the stage does not have, a broadcast
     * that does not fit), raised where the per-element evaluation would meet it: after the
     * nodes before it have run (and perhaps faulted first).
     */
    record Fail(Fault fault) implements Step {
        @Override
        public void run(Frame f) throws Fault {
            throw fault;
        }
    }

    private final List<Step> steps;
    private final ColType[] slotTypes;
    /** Per slot: its column's ordinal among the scratch columns of its type. */
    private final int[] slotOrdinals;
    private final int root;
    private final ColType rootType;
    private final Shape out;
    private final List<Shape> inShapes;
    private final List<DType> inTypes;
    private final boolean f64;

    CompiledExpr(List<Step> steps, ColType[] slotTypes, int[] slotOrdinals, int root, ColType rootType, Shape out,
                 List<Shape> inShapes, List<DType> inTypes, boolean f64) {
        this.steps = List.copyOf(steps);
        this.slotTypes = slotTypes;
        this.slotOrdinals = slotOrdinals;
        this.root = root;
        this.rootType = rootType;
        this.out = out;
        this.inShapes = inShapes;
        this.inTypes = inTypes;
        this.f64 = f64;
    }

    /** How many working columns an evaluation takes from its {@link Scratch} (inputs that need widening or a gather included). */
    int scratchColumns() {
        int k = 0;
        for (int o : slotOrdinals) {
            k += o >= 0 ? 1 : 0;
        }
        return k;
    }

    /** Whether this compilation is for these inputs, this output shape and this precision. */
    boolean fits(List<Tensor> ins, Shape outShape, boolean float64) {
        if (float64 != f64 || !outShape.equals(out) || ins.size() != inShapes.size()) {
            return false;
        }
        for (int i = 0; i < ins.size(); i++) {
            if (ins.get(i).dtype() != inTypes.get(i) || !ins.get(i).shape().equals(inShapes.get(i))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Evaluates the expression and stores its value, rounded once, in one fresh tensor per
     * {@code dtypes} entry (of shape {@code shape}, whose element count is this output's).
     */
    Tensor[] evaluate(RunState state, List<Tensor> ins, Scratch scratch, List<DType> dtypes, List<Shape> shapes) throws Fault {
        int n = (int) out.elementCount();
        Object[] cols = new Object[slotTypes.length];
        for (int s = 0; s < cols.length; s++) {
            if (slotOrdinals[s] >= 0) {
                cols[s] = scratch.column(slotTypes[s], slotOrdinals[s], n);
            }
        }
        Frame f = new Frame(cols, ins, state, n);
        for (Step step : steps) {
            step.run(f);
        }
        Tensor[] values = new Tensor[dtypes.size()];
        for (int o = 0; o < values.length; o++) {
            values[o] = store(state, cols[root], dtypes.get(o), shapes.get(o), n);
        }
        return values;
    }

    /**
     * The root column's first {@code n} values as a tensor of {@code dtype} (BOOL stores 0 or 1):
     * an f32 value or a float64-mode float value goes into the run's output storage for the stage
     * ({@link RunState#output}, reused from run to run), the others into fresh arrays.
     */
    private Tensor store(RunState state, Object column, DType dtype, Shape shape, int n) {
        boolean float64 = state.f64();
        if (rootType == ColType.F && dtype == DType.F32 && !float64) {
            Tensor t = state.output(DType.F32, shape);
            float[] dst = t.rawFloats();
            System.arraycopy((float[]) column, 0, dst, 0, n);
            Values.canonicalNaNs(dst, n);
            return t;
        }
        if (rootType == ColType.D && dtype.isFloating() && float64) {
            Tensor t = state.output(dtype, shape);
            double[] dst = t.rawDoubles();
            System.arraycopy((double[]) column, 0, dst, 0, n);
            Values.canonicalNaNs(dst, n);
            return t;
        }
        return switch (rootType) {
            case F -> Values.ofFloats(dtype, shape, Arrays.copyOf((float[]) column, n));
            case D -> Values.ofDoubles(dtype, shape, Arrays.copyOf((double[]) column, n));
            case I -> Values.ofInts(dtype, shape, Arrays.copyOf((int[]) column, n), float64);
            case B -> {
                boolean[] b = (boolean[]) column;
                int[] v = new int[n];
                for (int e = 0; e < n; e++) {
                    v[e] = b[e] ? 1 : 0;
                }
                yield Values.ofInts(dtype, shape, v, float64);
            }
        };
    }
}
