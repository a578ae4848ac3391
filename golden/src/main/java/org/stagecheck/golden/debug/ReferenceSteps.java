package org.stagecheck.golden.debug;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.stagecheck.interp.Precision;
import org.stagecheck.interp.StageFault;
import org.stagecheck.interp.Stepper;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.tensor.Tensor;

/**
 * The reference run one stage at a time, so that values can be substituted between stages: the
 * same evaluators, in the same order, as {@code Interpreter} (f32 reference semantics).
 */
final class ReferenceSteps implements AutoCloseable {
    private final Program program;
    private final Stepper state;

    ReferenceSteps(Program program, Map<String, Tensor> bound, Map<String, Long> params) throws DebugInputException {
        check(program, bound, params);
        this.program = program;
        this.state = new Stepper(program, Precision.F32, params, Runtime.getRuntime().availableProcessors());
        for (TensorDecl d : program.tensors()) {
            Tensor t = bound.get(d.name());
            if (t == null) {
                state.putTensor(d.name(), Tensor.zeros(d.dtype(), d.shape()));
            } else {
                state.putSharedTensor(d.name(), t);
            }
        }
    }

    /**
     * Refuses a run that cannot start: a parameter unbound or out of its range, a tensor bound
     * before the run without a value, or a value that does not fit its declaration.
     */
    static void check(Program program, Map<String, Tensor> bound, Map<String, Long> params) throws DebugInputException {
        checkParams(program, params);
        for (TensorDecl d : program.tensors()) {
            Tensor t = bound.get(d.name());
            if (t == null && d.role().isBoundBeforeRun()) {
                throw new DebugInputException("tensor '" + d.name() + "' (" + d.role().jsonName() + ") has no bound value");
            }
            if (t != null && (t.dtype() != d.dtype() || !t.shape().equals(d.shape()) || t.isFloat64())) {
                throw new DebugInputException("tensor '" + d.name() + "' is " + d.dtype() + d.shape() + " but its value is " + t.dtype() + t.shape());
            }
        }
    }

    /** Refuses a parameter of the program without a value in its range. */
    static void checkParams(Program program, Map<String, Long> params) throws DebugInputException {
        for (Param p : program.params()) {
            Long v = params.get(p.name());
            if (v == null || v < p.min() || v > p.max()) {
                throw new DebugInputException("parameter '" + p.name() + "' needs a value in [" + p.min() + ", " + p.max() + "]");
            }
        }
    }

    /** The values of the buffers {@code st} reads, as they are now (buffers never written are absent). */
    Map<String, Tensor> inputsOf(Stage st) throws StageFault {
        Map<String, Tensor> in = new LinkedHashMap<>();
        for (String b : st.buffersRead()) {
            Tensor t = state.readOrNull(b);
            if (t != null) {
                in.put(b, t);
            }
        }
        return in;
    }

    /** Runs {@code st} and returns its output ports' values. */
    List<Tensor> run(Stage st) throws StageFault {
        state.run(st);
        java.util.ArrayList<Tensor> outs = new java.util.ArrayList<>();
        for (String o : st.outs()) {
            outs.add(state.read(o));
        }
        return outs;
    }

    /**
     * Replaces buffer {@code name} with {@code value} when it fits the declaration (dtype and
     * element count); returns whether it did.
     */
    boolean substitute(String name, Tensor value) throws StageFault {
        BufferDecl d = state.bufferDecl(name);
        if (value.dtype() != d.dtype() || value.size() != d.shape().elementCount() || value.isFloat64()) {
            return false;
        }
        state.write(name, value);
        return true;
    }

    /** Replaces DRAM tensor {@code name} with {@code value} (not mutated: copied before a store writes it). */
    boolean substituteTensor(String name, Tensor value) {
        TensorDecl d = program.tensorsByName().get(name);
        if (d == null || value.dtype() != d.dtype() || !value.shape().equals(d.shape()) || value.isFloat64()) {
            return false;
        }
        state.putSharedTensor(name, value);
        return true;
    }

    Map<String, Tensor> tensors() {
        return state.tensors();
    }

    @Override
    public void close() {
        state.close();
    }
}
