package org.stagecheck.golden.debug;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.stagecheck.tensor.compare.FloatFormat;
import org.stagecheck.golden.derive.BoundStep;
import org.stagecheck.backend.MathMode;
import org.stagecheck.interp.Precision;
import org.stagecheck.interp.StageFault;
import org.stagecheck.interp.Stepper;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.tensor.Tensor;

/**
 * A run walked stage by stage in float64 with the derived bound of every value
 * ({@link BoundStep}), into which a backend's recorded values are substituted, each with the
 * bound of its own rounding to its dtype (half an ulp: the backend may have used the value before
 * rounding it for the record): what the stage-derived judgement (docs/debugging.md, "Beyond
 * rounding") compares each recorded stage with. After a substitution the bound of everything
 * computed from it grows only through the stages the backend did not record, so a recorded stage
 * whose producers were all recorded gets its own one-stage bound (its rounding, and its inputs'
 * half ulps carried through it), and one behind fused stages the bound of that short chain.
 *
 * <p>DRAM comes from one of two places:
 * <ul>
 *   <li>{@link #fromInputs}: the run's bound tensors, as for a reference run;</li>
 *   <li>{@link #fromTrace}: a full reference trace, when the inputs are not at hand (a diff of two
 *       trace directories). DRAM then holds the <em>difference</em> between this walk's values and
 *       the reference's: it starts at zero, a Store writes the difference of what it stores, and
 *       a Load or Recv yields the reference's traced value plus the moved difference. Data
 *       movement is linear, so this is the value the stage reads, without the initial DRAM.</li>
 * </ul>
 */
final class BoundWalk implements AutoCloseable {
    private final Program program;
    private final Map<String, Long> params;
    private final MathMode mode;
    private final Stepper val;
    private final Stepper err;
    /** The reference trace DRAM is relative to, or null when DRAM holds the values themselves. */
    private final StageTrace reference;
    private final Dataflow flow;

    /**
     * One stage's outputs.
     *
     * @param values           float64 values, port by port (i32 ports: the integers)
     * @param bounds           their bounds (i32 ports: zeros, or infinity where {@code integerUncertain})
     * @param integerUncertain whether an integer output may come out otherwise in a conforming evaluation
     */
    record Step(List<Tensor> values, List<Tensor> bounds, boolean integerUncertain) {}

    private BoundWalk(Program program, Map<String, Long> params, MathMode mode, StageTrace reference) {
        this.program = program;
        this.params = params;
        this.mode = mode;
        this.reference = reference;
        this.flow = reference == null ? null : Dataflow.of(program);
        this.val = new Stepper(program, Precision.F64, params);
        this.err = new Stepper(program, Precision.F64, params);
    }

    /** DRAM from the run's bound tensors (checked by the caller); unbound tensors are zeros. */
    static BoundWalk fromInputs(Program program, Map<String, Tensor> bound, Map<String, Long> params, MathMode mode) {
        BoundWalk w = new BoundWalk(program, params, mode, null);
        for (TensorDecl d : program.tensors()) {
            Tensor t = bound.get(d.name());
            w.putTensor(d, t == null ? Tensor.zeros(d.dtype(), d.shape()) : t);
        }
        return w;
    }

    /** DRAM relative to {@code reference}, a full trace of the reference run. */
    static BoundWalk fromTrace(Program program, StageTrace reference, Map<String, Long> params, MathMode mode) {
        BoundWalk w = new BoundWalk(program, params, mode, reference);
        for (TensorDecl d : program.tensors()) {
            w.putTensor(d, Tensor.zeros(d.dtype(), d.shape()));
        }
        return w;
    }

    private void putTensor(TensorDecl d, Tensor t) {
        if (d.dtype().isFloating()) {
            val.putTensor(d.name(), Tensor.wrapDoubles(d.dtype(), d.shape(), t.toDoubles()));
            err.putTensor(d.name(), Tensor.zerosFloat64(d.dtype(), d.shape()));
        } else {
            val.putTensor(d.name(), Tensor.wrapInts(d.shape(), t.toInts()));
            err.putTensor(d.name(), Tensor.zeros(DType.I32, d.shape()));
        }
    }

    /**
     * Runs stage {@code i} and returns its outputs' values and bounds.
     *
     * @throws StageFault when the stage faults on these values
     * @throws DebugInputException when DRAM is relative to a reference trace that lacks a value it needs
     */
    Step step(int i, Stage st) throws StageFault, DebugInputException {
        List<String> warnings = new ArrayList<>();
        boolean relative = reference != null;
        switch (st.kind()) {
            case StageKind.Store s when relative -> storeDifference(i, st);
            case StageKind.Load l when relative -> readDifference(st);
            case StageKind.Recv r when relative -> readDifference(st);
            case StageKind.Store s -> BoundStep.step(st, val, err, params, mode, warnings);
            case StageKind.Load l -> BoundStep.step(st, val, err, params, mode, warnings);
            case StageKind.Recv r -> BoundStep.step(st, val, err, params, mode, warnings);
            case StageKind.AllReduce a -> BoundStep.step(st, val, err, params, mode, warnings);
            case StageKind.Compute c -> BoundStep.step(st, val, err, params, mode, warnings);
            case StageKind.Scalar s -> BoundStep.step(st, val, err, params, mode, warnings);
        }
        boolean uncertain = !warnings.isEmpty();
        List<Tensor> values = new ArrayList<>();
        List<Tensor> bounds = new ArrayList<>();
        for (String out : st.outs()) {
            values.add(val.read(out));
            bounds.add(boundOf(val.bufferDecl(out), err.read(out), uncertain));
        }
        return new Step(values, bounds, uncertain);
    }

    /** A Store with DRAM relative to the reference: what it stores is this walk's value less the reference's. */
    private void storeDifference(int i, Stage st) throws StageFault, DebugInputException {
        List<Tensor> kept = new ArrayList<>();
        for (String b : st.ins()) {
            Tensor mine = val.read(b);
            kept.add(mine);
            val.write(b, minus(mine, referenceValue(i, st, b)));
        }
        try {
            val.run(st);
        } finally {
            for (int p = 0; p < st.ins().size(); p++) {
                val.write(st.ins().get(p), kept.get(p));
            }
        }
        err.run(st);
    }

    /** A Load or Recv with DRAM relative to the reference: the reference's traced value plus the moved difference. */
    private void readDifference(Stage st) throws StageFault, DebugInputException {
        val.run(st);
        err.run(st);
        List<Tensor> ref = reference.stages().get(st.id());
        if (ref == null || ref.size() != st.outs().size()) {
            throw new DebugInputException("the reference trace lacks stage '" + st.id() + "', which reads DRAM; trace the reference "
                    + "with run --trace, or give the run's inputs");
        }
        for (int p = 0; p < st.outs().size(); p++) {
            String out = st.outs().get(p);
            val.write(out, plus(ref.get(p), val.read(out)));
        }
    }

    /** The reference's value of buffer {@code b} as stage {@code i} reads it: its last writer's traced port. */
    private Tensor referenceValue(int i, Stage st, String b) throws DebugInputException {
        Integer w = flow.bufferWriters(i).get(b);
        Stage writer = w == null ? null : program.stages().get(w);
        List<Tensor> traced = writer == null ? null : reference.stages().get(writer.id());
        int port = writer == null ? -1 : writer.outs().indexOf(b);
        if (traced == null || port < 0 || port >= traced.size()) {
            throw new DebugInputException("stage '" + st.id() + "' stores buffer '" + b + "', whose reference value is in no trace "
                    + "(a spill, or an untraced reference): give the run's inputs to judge by replay");
        }
        return traced.get(port);
    }

    private static Tensor minus(Tensor a, Tensor b) {
        if (!a.dtype().isFloating()) {
            int[] x = a.toInts();
            int[] y = b.toInts();
            for (int k = 0; k < x.length; k++) {
                x[k] -= y[k];
            }
            return Tensor.wrapInts(a.shape(), x);
        }
        double[] x = a.toDoubles();
        for (int k = 0; k < x.length; k++) {
            x[k] -= b.getDouble(k);
        }
        return Tensor.wrapDoubles(a.dtype(), a.shape(), x);
    }

    private static Tensor plus(Tensor ref, Tensor diff) {
        if (!diff.dtype().isFloating()) {
            int[] x = diff.toInts();
            for (int k = 0; k < x.length; k++) {
                x[k] += ref.getInt(k);
            }
            return Tensor.wrapInts(diff.shape(), x);
        }
        double[] x = diff.toDoubles();
        for (int k = 0; k < x.length; k++) {
            x[k] += ref.getDouble(k);
        }
        return Tensor.wrapDoubles(diff.dtype(), diff.shape(), x);
    }

    /** A bound as the judgement uses it: floating ports as derived; i32 ports exact unless uncertain. */
    private static Tensor boundOf(BufferDecl d, Tensor e, boolean uncertain) {
        if (d.dtype().isFloating()) {
            return e;
        }
        double[] b = new double[Math.toIntExact(d.shape().elementCount())];
        if (uncertain) {
            java.util.Arrays.fill(b, Double.POSITIVE_INFINITY);
        }
        return Tensor.wrapDoubles(DType.F32, d.shape(), b);
    }

    /**
     * Replaces buffer {@code name} with {@code value} (float64-mode values too, as a float64 run
     * writes them), known to within its dtype's rounding, when it fits the declaration (dtype and
     * element count); returns whether it did. A multicast Load's output is delivered to
     * the group again, as the backend's receivers get what it loaded.
     */
    boolean substitute(String name, Tensor value, Stage writer) throws StageFault {
        BufferDecl d = val.bufferDecl(name);
        if (value.dtype() != d.dtype() || value.size() != d.shape().elementCount()) {
            return false;
        }
        Shape sh = d.shape();
        Tensor v = d.dtype().isFloating() ? Tensor.wrapDoubles(d.dtype(), sh, value.toDoubles()) : Tensor.wrapInts(sh, value.toInts());
        Tensor e = d.dtype().isFloating() ? roundingOf(v) : v;
        val.write(name, v);
        err.write(name, e);
        if (writer != null && writer.kind() instanceof StageKind.Load l && l.multicast() != null && writer.outs().indexOf(name) == 0) {
            // with DRAM relative to the reference a delivery is relative too: a Recv adds the reference's value back
            List<Tensor> ref = reference == null ? null : reference.stages().get(writer.id());
            val.deliver(l.multicast(), ref == null ? v : minus(v, ref.get(0)));
            err.deliver(l.multicast(), e);
        }
        return true;
    }

    /**
     * Replaces DRAM tensor {@code name} with {@code value}, known to within its dtype's rounding
     * (only when DRAM holds values, not differences).
     */
    boolean substituteTensor(String name, Tensor value) {
        TensorDecl d = program.tensorsByName().get(name);
        if (reference != null || d == null || value.dtype() != d.dtype() || !value.shape().equals(d.shape())) {
            return false;
        }
        putTensor(d, value);
        if (d.dtype().isFloating()) {
            err.putTensor(name, roundingOf(val.tensors().get(name)));
        }
        return true;
    }

    /**
     * The bound a recorded value carries: half a unit in the last place of its dtype, {@code u|x|}
     * plus half the smallest subnormal. A backend may have computed with the value before rounding
     * it to the recorded dtype (a fused kernel, a float64 evaluation), so what it fed the next stage
     * is known to within this, not exactly.
     */
    private static Tensor roundingOf(Tensor v) {
        FloatFormat f = FloatFormat.of(v.dtype());
        double[] e = new double[Math.toIntExact(v.size())];
        for (int k = 0; k < e.length; k++) {
            double x = v.getDouble(k);
            e[k] = Double.isFinite(x) ? f.unitRoundoff() * Math.abs(x) + f.minSubnormal() / 2 : 0;
        }
        return Tensor.wrapDoubles(v.dtype(), v.shape(), e);
    }

    /** The values of the buffers {@code st} reads, as they are now (never written: absent); values are never changed in place. */
    Map<String, Tensor> inputsOf(Stage st) throws StageFault {
        Map<String, Tensor> in = new java.util.LinkedHashMap<>();
        for (String b : st.buffersRead()) {
            Tensor t = val.readOrNull(b);
            if (t != null) {
                in.put(b, t);
            }
        }
        return in;
    }

    /** A float64-mode value rounded to its dtype's storage (exact for a substituted value); other values unchanged. */
    static Tensor narrowed(Tensor t) {
        return t.isFloat64() ? Tensor.fromFloats(t.dtype(), t.shape(), t.toFloats()) : t;
    }

    /** Buffer {@code name}'s value and bound now (null when never written). */
    Tensor[] buffer(String name) throws StageFault {
        Tensor v = val.readOrNull(name);
        return v == null ? null : new Tensor[] {v, boundOf(val.bufferDecl(name), err.read(name), false)};
    }

    /**
     * DRAM tensor {@code name}'s value and bound now: with DRAM relative to the reference, the
     * reference's final value of it plus the difference (null when the reference recorded none).
     */
    Tensor[] tensor(String name) throws StageFault {
        TensorDecl d = val.tensorDecl(name);
        Tensor v = val.tensor(name);
        if (reference != null) {
            Tensor ref = reference.tensors().get(name);
            if (ref == null) {
                return null;
            }
            v = plus(ref, v);
        }
        Tensor e = d.dtype().isFloating() ? err.tensor(name) : Tensor.wrapDoubles(DType.F32, d.shape(), new double[Math.toIntExact(v.size())]);
        return new Tensor[] {v, e};
    }

    @Override
    public void close() {
        val.close();
        err.close();
    }
}
