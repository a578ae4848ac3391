package org.stagecheck.golden.derive;

import org.stagecheck.backend.MathMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
import org.stagecheck.tensor.numeric.Rounding;

/**
 * What every sample of an {@link Ensemble} needs, made by the nominal run: the program (with its
 * inner narrow casts made stages of their own, {@link NarrowCasts}) evaluated
 * in float64 with each narrower-than-f32 output rounded to its dtype (the values the samples
 * deviate from), and, per computing stage, the size of the perturbation of each floating output
 * element: its own rounding bound with exact inputs, scaled for a random accumulation order.
 */
final class Plan {
    /**
     * A floating buffer a computing stage writes.
     *
     * @param amplitude   the largest perturbation of each element (null: the stage computes it exactly)
     * @param narrowIndex its index in {@link #narrowing} when its dtype is narrower than f32, else -1
     */
    record Port(String buffer, DType dtype, Shape shape, double[] amplitude, int narrowIndex) {}

    /** An output rounded to a narrower dtype: its nominal f32-level value before the rounding. */
    record Narrowing(String stage, String buffer, double[] nominalBeforeRounding, double[] amplitude) {}

    /** The floating input of an arg-max stage in the nominal run (outer x len x inner layout). */
    record Argmax(String stage, String input, double[] nominal, int outer, int len, int inner) {}

    final Program program;
    final List<List<Port>> ports = new ArrayList<>();
    final List<Narrowing> narrowing = new ArrayList<>();
    final List<Argmax> argmax = new ArrayList<>();
    /** Stage index to its entry in {@link #argmax}. */
    final Map<Integer, Integer> argmaxAt = new HashMap<>();
    final List<TensorDecl> outputs;
    final Map<String, Tensor> nominal = new LinkedHashMap<>();
    /** Every DRAM tensor's value before the run, float64-mode where floating: what each sample starts from. */
    final Map<String, Tensor> initial = new LinkedHashMap<>();
    /** Per narrowing port, the half-width around an element's value within which the second half of the samples explore both roundings. */
    double[][] margins;

    private Plan(Program program) {
        this.program = program;
        this.outputs = Ensemble.produced(program);
    }

    static Plan of(Program original, Map<String, Tensor> bound, Map<String, Long> params, MathMode mode) throws DerivedBounds.BoundException {
        Program program = NarrowCasts.split(original);
        Plan plan = new Plan(program);
        try (Stepper val = new Stepper(program, Precision.F64, params);
             Stepper err = new Stepper(program, Precision.F64, params)) {
            DerivedBounds.bind(program, bound, val, err);
            for (TensorDecl d : program.tensors()) {
                plan.initial.put(d.name(), val.tensors().get(d.name()).copy());
            }
            List<Stage> stages = program.stages();
            for (int i = 0; i < stages.size(); i++) {
                Stage st = stages.get(i);
                try {
                    plan.stage(i, st, val, err, params, mode);
                } catch (StageFault f) {
                    throw new DerivedBounds.BoundException("stage " + i + " '" + st.id() + "' faulted in the float64 evaluation: " + f.getMessage());
                }
            }
            for (TensorDecl d : program.tensors()) {
                plan.nominal.put(d.name(), val.tensors().get(d.name()));
            }
        }
        return plan;
    }

    private void stage(int index, Stage st, Stepper val, Stepper err, Map<String, Long> params, MathMode mode) throws StageFault {
        ComputeOp.Reduce am = Ensemble.argmaxOf(st);
        if (am != null) {
            Tensor x = val.read(st.ins().get(0));
            if (x.dtype().isFloating()) {
                Shape s = x.shape();
                int len = s.dim(am.axis());
                int inner = 1;
                for (int a = am.axis() + 1; a < s.rank(); a++) {
                    inner *= s.dim(a);
                }
                int outer = Math.toIntExact(len == 0 ? 0 : x.size() / ((long) len * inner));
                argmaxAt.put(index, argmax.size());
                argmax.add(new Argmax(st.id(), st.ins().get(0), x.toDoubles(), outer, len, inner));
            }
        }
        double scale = 1 / Math.sqrt(accumulationLength(st, val));
        DerivedBounds.step(st, val, err, params, mode, new ArrayList<>(), false);
        List<Port> written = new ArrayList<>();
        if (Ensemble.computes(st)) {
            for (String name : writtenBy(st)) {
                BufferDecl bd = val.bufferDecl(name);
                if (!bd.dtype().isFloating()) {
                    continue;
                }
                double[] amp = err.read(name).toDoubles();
                boolean any = false;
                for (int j = 0; j < amp.length; j++) {
                    amp[j] *= scale;
                    any |= amp[j] != 0;
                }
                err.write(name, Tensor.zerosFloat64(bd.dtype(), bd.shape()));
                int narrowIndex = -1;
                if (bd.dtype() != DType.F32 && st.outs().contains(name)) {
                    double[] pre = val.read(name).toDoubles();
                    narrowIndex = narrowing.size();
                    narrowing.add(new Narrowing(st.id(), name, pre, amp));
                    double[] rounded = new double[pre.length];
                    for (int j = 0; j < pre.length; j++) {
                        rounded[j] = round(bd.dtype(), pre[j]);
                    }
                    val.write(name, Tensor.wrapDoubles(bd.dtype(), bd.shape(), rounded));
                }
                written.add(new Port(name, bd.dtype(), bd.shape(), any ? amp : null, narrowIndex));
            }
        }
        ports.add(written);
    }

    /** The buffers stage {@code st} writes: its outputs, and a matmul's spill. */
    private static List<String> writtenBy(Stage st) {
        List<String> out = new ArrayList<>(st.outs());
        if (st.kind() instanceof StageKind.Compute c && c.op() instanceof ComputeOp.MatMul m && m.spill() != null
                && !out.contains(m.spill())) {
            out.add(m.spill());
        }
        return out;
    }

    /**
     * How many rounded additions make one output element: a matmul's K + 1 (the spill's start
     * included), a sum's length, an all-reduce's members less one; 1 for other stages.
     */
    private static double accumulationLength(Stage st, Stepper val) throws StageFault {
        return switch (st.kind()) {
            case StageKind.AllReduce a -> Math.max(1, st.ins().size() - 1);
            case StageKind.Compute c when c.op() instanceof ComputeOp.MatMul m -> {
                Shape as = val.read(st.ins().get(0)).shape();
                yield (m.transposeA() ? as.dim(as.rank() - 2) : as.dim(as.rank() - 1)) + 1;
            }
            case StageKind.Compute c when c.op() instanceof ComputeOp.Reduce r && r.fn() == org.stagecheck.spec.ir.ReduceFn.SUM ->
                    Math.max(1, val.read(st.ins().get(0)).shape().dim(r.axis()));
            case StageKind.Compute c -> 1;
            case StageKind.Load l -> 1;
            case StageKind.Store s -> 1;
            case StageKind.Recv r -> 1;
            case StageKind.Scalar s -> 1;
        };
    }

    /** Sets each narrowing port's exploration margin from the movement the measuring samples saw. */
    void freezeMovement(Ensemble.Deviations measured) {
        margins = new double[narrowing.size()][];
        for (int p = 0; p < margins.length; p++) {
            double[] move = measured.movement[p];
            double[] amp = narrowing.get(p).amplitude();
            double[] m = new double[move.length];
            for (int j = 0; j < m.length; j++) {
                m[j] = Ensemble.TIE_MARGIN * (move[j] + amp[j]);
            }
            margins[p] = m;
        }
    }

    /** {@code x} rounded as the reference rounds a stage's result: to f32, then to {@code dtype}, each to nearest even. */
    static double round(DType dtype, double x) {
        return Rounding.roundTo(dtype, (float) x);
    }
}
