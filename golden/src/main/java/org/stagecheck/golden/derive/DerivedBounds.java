package org.stagecheck.golden.derive;

import org.stagecheck.backend.MathMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.stagecheck.tensor.compare.FloatFormat;
import org.stagecheck.interp.Precision;
import org.stagecheck.interp.StageFault;
import org.stagecheck.interp.Stepper;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.tensor.Tensor;

/**
 * The {@code derived} tolerance (docs/golden.md, "Derived bounds"): for every element of every
 * DRAM tensor after a run, a bound on the distance between the true value (the program evaluated
 * in float64) and what any conforming f32 implementation computes, the reference interpreter and
 * a backend within {@link MathMode}'s function budgets alike.
 *
 * <p>Two evaluation states walk the stages together: one holds the true values (the
 * interpreter's own float64 mode, stage by stage), the other the error bounds, laid out like the
 * values (a float64-mode tensor of bounds for every floating tensor and buffer; i32 ones hold the
 * true integers, which are exact). Stages that only move data (load, store, receive, reshape,
 * transpose, slice, concat) are run by the interpreter itself on the bounds, which moves each
 * bound with its element; compute stages get their bound from {@link ExprBounds} and
 * {@link ContractionBounds}; each floating output narrower than f32 adds its rounding.
 */
public final class DerivedBounds {
    private DerivedBounds() {
    }

    /**
     * @param values   every DRAM tensor's true value after the run (float64-mode for floating dtypes)
     * @param bounds   every floating DRAM tensor's per-element bound (float64-mode tensors)
     * @param warnings integer results that may differ between conforming implementations (an
     *                 argmax whose top values are within their bounds, a cast of an uncertain value),
     *                 each naming the stage; empty when every integer result is certain
     */
    public record Result(Map<String, Tensor> values, Map<String, Tensor> bounds, List<String> warnings) {
        public Result {
            values = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(values));
            bounds = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(bounds));
            warnings = List.copyOf(warnings);
        }
    }

    /** Raised when the program faults: there is nothing to bound (the reference run faults too). */
    public static final class BoundException extends Exception {
        BoundException(String message) {
            super(message);
        }
    }

    /**
     * Bounds for {@code program} run on {@code bound} with {@code params}.
     *
     * @throws BoundException naming the stage where the float64 evaluation faulted
     */
    public static Result compute(Program program, Map<String, Tensor> bound, Map<String, Long> params, MathMode mode) throws BoundException {
        return compute(program, bound, params, mode, (index, stage, values, bounds) -> { });
    }

    /**
     * Receives every stage's outputs as they are bounded: for a first-divergent-stage search or a
     * per-stage comparison of traces.
     */
    @FunctionalInterface
    public interface StageListener {
        /**
         * @param values the stage's output ports' true values, in port order
         * @param bounds their bounds (float64-mode tensors; for an i32 port the true integers)
         */
        void stage(int index, Stage stage, List<Tensor> values, List<Tensor> bounds);
    }

    /** {@link #compute(Program, Map, Map, MathMode)}, telling {@code listener} each stage's values and bounds. */
    public static Result compute(Program program, Map<String, Tensor> bound, Map<String, Long> params, MathMode mode,
                                 StageListener listener) throws BoundException {
        try (Stepper val = new Stepper(program, Precision.F64, params);
             Stepper err = new Stepper(program, Precision.F64, params)) {
            bind(program, bound, val, err);
            List<String> warnings = new ArrayList<>();
            List<Stage> stages = program.stages();
            for (int i = 0; i < stages.size(); i++) {
                Stage st = stages.get(i);
                try {
                    step(st, val, err, params, mode, warnings, true);
                    listener.stage(i, st, read(val, st.outs()), read(err, st.outs()));
                } catch (StageFault f) {
                    throw new BoundException("stage " + i + " '" + st.id() + "' faulted in the float64 evaluation: " + f.getMessage());
                }
            }
            Map<String, Tensor> values = new LinkedHashMap<>();
            Map<String, Tensor> bounds = new LinkedHashMap<>();
            for (TensorDecl d : program.tensors()) {
                values.put(d.name(), val.tensors().get(d.name()));
                if (d.dtype().isFloating()) {
                    Tensor e = err.tensors().get(d.name());
                    bounds.put(d.name(), Tensor.wrapDoubles(d.dtype(), d.shape(), e.toDoubles()));
                }
            }
            return new Result(values, bounds, warnings);
        }
    }

    /**
     * Binds every DRAM tensor: its value (float64-mode for a floating dtype, zeros when unbound)
     * into {@code val}, and into {@code err} (when not null) a zero bound for a floating tensor or
     * the true integers for an i32 one.
     */
    static void bind(Program program, Map<String, Tensor> bound, Stepper val, Stepper err) {
        for (TensorDecl d : program.tensors()) {
            Tensor t = bound.get(d.name());
            if (d.dtype().isFloating()) {
                val.putTensor(d.name(), t == null ? Tensor.zerosFloat64(d.dtype(), d.shape())
                        : Tensor.wrapDoubles(d.dtype(), d.shape(), t.toDoubles()));
                if (err != null) {
                    err.putTensor(d.name(), Tensor.zerosFloat64(d.dtype(), d.shape()));
                }
            } else {
                Tensor v = t == null ? Tensor.zeros(d.dtype(), d.shape()) : Tensor.wrapInts(d.shape(), t.toInts());
                val.putTensor(d.name(), v);
                if (err != null) {
                    err.putTensor(d.name(), Tensor.wrapInts(d.shape(), v.toInts()));
                }
            }
        }
    }

    /**
     * Runs stage {@code st} on the true values and bounds it.
     *
     * @param narrow whether a floating output narrower than f32 adds the rounding to its dtype
     *               (false: the bound of the f32 result before that rounding, which
     *               {@link Ensemble} applies itself)
     */
    static void step(Stage st, Stepper val, Stepper err, Map<String, Long> params, MathMode mode, List<String> warnings,
                     boolean narrow) throws StageFault {
        switch (st.kind()) {
            case StageKind.Load l -> moved(st, val, err);
            case StageKind.Store s -> moved(st, val, err);
            case StageKind.Recv r -> moved(st, val, err);
            case StageKind.AllReduce a -> expression(st, a.combine(), false, val, err, params, mode, warnings, narrow);
            case StageKind.Scalar sc -> scalar(st, sc, val, err, params, mode, warnings, narrow);
            case StageKind.Compute c -> {
                switch (c.op()) {
                    case ComputeOp.Generic g -> expression(st, g, false, val, err, params, mode, warnings, narrow);
                    case ComputeOp.MatMul m -> matmul(st, m, val, err, mode, narrow);
                    case ComputeOp.Reduce r -> reduce(st, r, val, err, mode, warnings, narrow);
                    case ComputeOp.Reshape r -> moved(st, val, err);
                    case ComputeOp.Transpose t -> moved(st, val, err);
                    case ComputeOp.Slice s -> moved(st, val, err);
                    case ComputeOp.Concat cc -> moved(st, val, err);
                }
            }
        }
    }

    /** A data-moving stage: the interpreter runs it on the values and on the bounds alike. */
    private static void moved(Stage st, Stepper val, Stepper err) throws StageFault {
        val.run(st);
        err.run(st);
    }

    private static List<Tensor> read(Stepper s, List<String> names) throws StageFault {
        List<Tensor> out = new ArrayList<>();
        for (String n : names) {
            out.add(s.read(n));
        }
        return out;
    }

    private static void expression(Stage st, ComputeOp.Generic g, boolean scalar, Stepper val, Stepper err,
                                   Map<String, Long> params, MathMode mode, List<String> warnings, boolean narrow) throws StageFault {
        List<Tensor> vs = read(val, st.ins());
        List<Tensor> es = read(err, st.ins());
        val.run(st);
        BufferDecl first = val.bufferDecl(st.outs().get(0));
        BoundCol c = new ExprBounds(first.shape().toArray(), vs, es, params, scalar, mode).eval(g.expr());
        for (String out : st.outs()) {
            writeBound(st, out, c.v(), c.e(), val, err, mode, warnings, narrow);
        }
    }

    private static void scalar(Stage st, StageKind.Scalar k, Stepper val, Stepper err, Map<String, Long> params,
                               MathMode mode, List<String> warnings, boolean narrow) throws StageFault {
        List<Tensor> vs = read(val, st.ins());
        List<Tensor> es = read(err, st.ins());
        val.run(st);
        for (int r = 0; r < st.outs().size(); r++) {
            BufferDecl bd = val.bufferDecl(st.outs().get(r));
            BoundCol c = new ExprBounds(bd.shape().toArray(), vs, es, params, true, mode).eval(k.body().results().get(r));
            writeBound(st, bd.name(), c.v(), c.e(), val, err, mode, warnings, narrow);
        }
    }

    /**
     * Writes the bound of output buffer {@code out}: for a floating buffer the expression's bound
     * plus the rounding to the buffer's dtype; for an i32 buffer the true integers (and a warning
     * where they may differ).
     */
    private static void writeBound(Stage st, String out, double[] v, double[] e, Stepper val, Stepper err, MathMode mode,
                                   List<String> warnings, boolean narrow) throws StageFault {
        BufferDecl bd = val.bufferDecl(out);
        if (bd.dtype().isInteger()) {
            err.write(out, val.read(out));
            List<Integer> uncertain = new ArrayList<>();
            for (int i = 0; i < e.length; i++) {
                if (e[i] != 0) {
                    uncertain.add(i);
                }
            }
            if (!uncertain.isEmpty()) {
                warnings.add("stage '" + st.id() + "': integer output '" + out + "' is computed from values whose bound does not rule out a different result at "
                        + uncertain.size() + " element(s): " + DerivedTolerance.elements(bd.shape(), uncertain));
            }
            return;
        }
        double[] b = new double[e.length];
        FloatFormat f = FloatFormat.of(bd.dtype());
        boolean narrows = narrow && bd.dtype() != DType.F32;
        double floor = Math.max(f.minSubnormal() / 2, mode.flushFloor());
        for (int i = 0; i < b.length; i++) {
            b[i] = narrows ? e[i] + f.unitRoundoff() * (Math.abs(v[i]) + e[i]) + floor : e[i];
        }
        err.write(out, Tensor.wrapDoubles(bd.dtype(), bd.shape(), b));
    }

    private static void matmul(Stage st, ComputeOp.MatMul mm, Stepper val, Stepper err, MathMode mode, boolean narrow) throws StageFault {
        Tensor a = val.read(st.ins().get(0));
        Tensor b = val.read(st.ins().get(1));
        Tensor ea = err.read(st.ins().get(0));
        Tensor eb = err.read(st.ins().get(1));
        Tensor bias = mm.bias() == null ? null : val.read(mm.bias());
        Tensor biasErr = mm.bias() == null ? null : err.read(mm.bias());
        Tensor spill = mm.spill() == null ? null : val.readOrNull(mm.spill());
        Tensor spillErr = mm.spill() == null ? null : err.readOrNull(mm.spill());
        val.run(st);
        if (a.dtype().isInteger()) {
            for (String out : st.outs()) {
                err.write(out, val.read(out));
            }
            return;
        }
        Shape as = a.shape();
        Shape bs = b.shape();
        int m = mm.transposeA() ? as.dim(as.rank() - 1) : as.dim(as.rank() - 2);
        int k = mm.transposeA() ? as.dim(as.rank() - 2) : as.dim(as.rank() - 1);
        int n = mm.transposeB() ? bs.dim(bs.rank() - 2) : bs.dim(bs.rank() - 1);
        int batches = Math.toIntExact(a.size() / ((long) m * k));
        ContractionBounds.MatMulBound r = ContractionBounds.matmul(mm, a.toDoubles(), ea.toDoubles(), b.toDoubles(), eb.toDoubles(),
                batches, bs.rank() > 2, m, k, n, spill == null ? null : spill.toDoubles(), spillErr == null ? null : spillErr.toDoubles(), mode);
        BufferDecl od = val.bufferDecl(st.outs().get(0));
        if (mm.spill() != null) {
            err.write(mm.spill(), Tensor.wrapDoubles(DType.F32, od.shape(), r.accError().clone()));
        }
        double[] v = r.accValue();
        double[] e = r.accError();
        if (bias != null) {
            int[] src = ExprBounds.broadcast(bias.shape(), od.shape().toArray());
            for (int o = 0; o < v.length; o++) {
                double p = e[o] + biasErr.getDouble(src[o]);
                v[o] += bias.getDouble(src[o]);
                e[o] = p + ExprBounds.U32 * (Math.abs(v[o]) + p) + mode.flushFloor();
            }
        }
        writeBound(st, od.name(), v, e, val, err, mode, new ArrayList<>(), narrow);
    }

    private static void reduce(Stage st, ComputeOp.Reduce r, Stepper val, Stepper err, MathMode mode, List<String> warnings,
                               boolean narrow) throws StageFault {
        Tensor x = val.read(st.ins().get(0));
        Tensor ex = x.dtype().isFloating() ? err.read(st.ins().get(0)) : Tensor.zerosFloat64(DType.F32, x.shape());
        val.run(st);
        int axis = r.axis();
        int len = x.shape().dim(axis);
        int inner = 1;
        for (int a = axis + 1; a < x.shape().rank(); a++) {
            inner *= x.shape().dim(a);
        }
        int outer = Math.toIntExact(len == 0 ? 0 : x.size() / ((long) len * inner));
        String out = st.outs().get(0);
        if (x.dtype().isInteger()) {
            err.write(out, val.read(out));
            return;
        }
        ContractionBounds.ReduceBound b = ContractionBounds.reduce(r.fn(), x, ex, outer, len, inner, mode);
        if (b.argmaxUncertain()) {
            warnings.add("stage '" + st.id() + "': argmax's top values are within their bounds of each other; another conforming implementation may pick another index");
        }
        writeBound(st, out, b.value(), b.error(), val, err, mode, warnings, narrow);
    }
}
