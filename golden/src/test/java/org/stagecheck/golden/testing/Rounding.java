package org.stagecheck.golden.testing;

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
import org.stagecheck.tensor.Tensor;

/**
 * How a fake backend evaluates a stage correctly: each a conforming evaluation that rounds
 * differently from the reference, so that a diff of it against the reference shows rounding at
 * almost every stage and a bug nowhere.
 */
public enum Rounding {
    /** The reference's own evaluator. */
    REFERENCE,
    /**
     * Every f32 MatMul accumulates over k descending (the reference's fma chain in the opposite
     * order), everything else as the reference.
     */
    K_REVERSED,
    /**
     * Every compute stage evaluated in float64 on its f32 inputs, then rounded to its output dtype
     * (ties to even): a backend with exact arithmetic inside each stage. Data movement as the reference.
     */
    F64_PER_STAGE;

    /** Runs {@code st} on {@code s} this way. */
    void run(Program program, Stage st, Stepper s, Map<String, Long> params) throws StageFault {
        switch (this) {
            case REFERENCE -> s.run(st);
            case K_REVERSED -> {
                if (reversible(program, st)) {
                    reversedMatMul(program, st, s, params);
                } else {
                    s.run(st);
                }
            }
            case F64_PER_STAGE -> {
                if (org.stagecheck.golden.derive.Ensemble.computes(st)) {
                    inFloat64(program, st, s, params);
                } else {
                    s.run(st);
                }
            }
        }
    }

    /** Whether a MatMul over f32 operands with a contraction of at least 2 and no spill (an order to reverse). */
    static boolean reversible(Program program, Stage st) {
        Map<String, BufferDecl> b = program.buffersByName();
        return st.kind() instanceof StageKind.Compute c && c.op() instanceof ComputeOp.MatMul m && m.spill() == null
                && b.get(st.ins().get(0)).dtype() == DType.F32 && kOf(m, b.get(st.ins().get(0)).shape()) >= 2;
    }

    static int kOf(ComputeOp.MatMul m, Shape a) {
        return m.transposeA() ? a.dim(a.rank() - 2) : a.dim(a.rank() - 1);
    }

    /**
     * A with its k axis reversed times B with its k axis reversed is the same sum, taken over k
     * descending: the reference's fma chain in the opposite order.
     */
    static void reversedMatMul(Program program, Stage st, Stepper s, Map<String, Long> params) throws StageFault {
        ComputeOp.MatMul m = (ComputeOp.MatMul) ((StageKind.Compute) st.kind()).op();
        Tensor a = s.read(st.ins().get(0));
        Tensor b = s.read(st.ins().get(1));
        int ra = a.shape().rank();
        int rb = b.shape().rank();
        try (Stepper alt = new Stepper(program, Precision.F32, params, 1)) {
            for (String r : st.buffersRead()) {
                Tensor v = s.readOrNull(r);
                if (v != null) {
                    alt.write(r, v);
                }
            }
            alt.write(st.ins().get(0), reversed(a, m.transposeA() ? ra - 2 : ra - 1));
            alt.write(st.ins().get(1), reversed(b, m.transposeB() ? rb - 1 : rb - 2));
            alt.run(st);
            for (String o : st.outs()) {
                s.write(o, alt.read(o));
            }
        }
    }

    /** The stage in the interpreter's float64 mode on its inputs, each output rounded to its dtype. */
    private static void inFloat64(Program program, Stage st, Stepper s, Map<String, Long> params) throws StageFault {
        try (Stepper wide = new Stepper(program, Precision.F64, params, 1)) {
            for (String r : st.buffersRead()) {
                Tensor v = s.readOrNull(r);
                if (v != null) {
                    wide.write(r, v.dtype().isFloating() ? Tensor.wrapDoubles(v.dtype(), v.shape(), v.toDoubles()) : v);
                }
            }
            wide.run(st);
            for (String o : org.stagecheck.golden.debug.Dataflow.written(st)) {
                Tensor v = wide.readOrNull(o);
                if (v != null) {
                    s.write(o, v.isFloat64() ? Tensor.fromFloats(v.dtype(), v.shape(), narrow(v)) : v);
                }
            }
        }
    }

    /**
     * The values as f32, rounded once: for a narrower dtype {@code fromFloats} rounds again, which
     * may differ from one rounding at a double tie, within the dtype's rounding all the same.
     */
    private static float[] narrow(Tensor v) {
        return v.toFloats();
    }

    /** {@code t} with axis {@code ax} reversed. */
    static Tensor reversed(Tensor t, int ax) {
        Shape sh = t.shape();
        int len = sh.dim(ax);
        int inner = 1;
        for (int i = ax + 1; i < sh.rank(); i++) {
            inner *= sh.dim(i);
        }
        float[] v = t.toFloats();
        float[] r = new float[v.length];
        int outer = len == 0 ? 0 : v.length / (len * inner);
        for (int o = 0; o < outer; o++) {
            for (int k = 0; k < len; k++) {
                System.arraycopy(v, (o * len + k) * inner, r, (o * len + (len - 1 - k)) * inner, inner);
            }
        }
        return Tensor.fromFloats(t.dtype(), sh, r);
    }
}
