package org.stagecheck.golden.debug;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.stagecheck.backend.BindingProblem;
import org.stagecheck.backend.Bindings;
import org.stagecheck.backend.ParamCheck;
import org.stagecheck.interp.Precision;
import org.stagecheck.interp.StageFault;
import org.stagecheck.interp.Stepper;
import org.stagecheck.spec.ir.BufferDecl;
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
     * Refuses a run that cannot start: any problem {@link Bindings#check} finds (a parameter
     * unbound, undeclared or out of its range; a tensor bound before the run without a value, a
     * value that does not fit its declaration, a value for a name that is no tensor).
     */
    static void check(Program program, Map<String, Tensor> bound, Map<String, Long> params) throws DebugInputException {
        List<BindingProblem> problems = Bindings.check(program, bound, params);
        if (!problems.isEmpty()) {
            throw new DebugInputException(Bindings.describe(problems));
        }
    }

    /** Refuses parameters {@link ParamCheck} refuses (one of the program's unbound or out of its range, or an undeclared name). */
    static void checkParams(Program program, Map<String, Long> params) throws DebugInputException {
        List<BindingProblem> problems = ParamCheck.problems(program, params);
        if (!problems.isEmpty()) {
            throw new DebugInputException(Bindings.describe(problems));
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
