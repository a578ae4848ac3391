package org.stagecheck.interp;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.stagecheck.interp.eval.Fault;
import org.stagecheck.interp.eval.Parallel;
import org.stagecheck.interp.eval.RunState;
import org.stagecheck.interp.eval.StageEvaluator;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.tensor.Tensor;

/**
 * The reference evaluator one stage at a time (brief, "Debugging backend numerical mismatches";
 * docs/semantics.md): the values of a program's DRAM tensors and core buffers, which the caller
 * may read and replace between stages, and {@link #run(Stage)}, which evaluates one stage on them
 * exactly as a run of the {@link Interpreter} does (the same code, bit for bit). Golden's
 * debugging tools replay a backend's values through it (which stage first went wrong, and by how
 * much) and its derived tolerances evaluate in {@link Precision#F64} beside a bound.
 *
 * <p>Nothing is checked before a stage runs: binding every tensor the stages read is the
 * caller's part, and a stage that cannot be evaluated on the values held is a {@link StageFault}.
 * Not thread-safe: one stepper serves one caller.
 */
public final class Stepper implements AutoCloseable {
    private final Parallel parallel;
    private final RunState state;

    /** A stepper over {@code program} in {@code precision}, with parameter values {@code params}, on the calling thread alone. */
    public Stepper(Program program, Precision precision, Map<String, Long> params) {
        this(program, precision, params, 1);
    }

    /** As {@link #Stepper(Program, Precision, Map)}, with {@code threads} worker threads for a stage's output-parallel loops (values never depend on it). */
    public Stepper(Program program, Precision precision, Map<String, Long> params, int threads) {
        this.parallel = new Parallel(threads);
        this.state = new RunState(program, precision, parallel, params);
    }

    public Program program() {
        return state.program();
    }

    /** Whether values are float64 ({@link Precision#F64}). */
    public boolean f64() {
        return state.f64();
    }

    /**
     * Evaluates {@code stage} on the values held: reads its inputs, writes its outputs (and, for
     * a Store, its tensor region), as one step of a run.
     */
    public void run(Stage stage) throws StageFault {
        try {
            StageEvaluator.run(stage, state);
        } catch (Fault f) {
            throw fault(f);
        }
    }

    /** The values of {@code stage}'s input ports, in port order. */
    public List<Tensor> inputs(Stage stage) throws StageFault {
        return readAll(stage.ins());
    }

    /** The values of {@code stage}'s output ports, in port order (after {@link #run(Stage)}: what it wrote). */
    public List<Tensor> outputs(Stage stage) throws StageFault {
        return readAll(stage.outs());
    }

    private List<Tensor> readAll(List<String> buffers) throws StageFault {
        List<Tensor> values = new ArrayList<>(buffers.size());
        for (String b : buffers) {
            values.add(read(b));
        }
        return values;
    }

    /** The value of buffer {@code name}; one no stage has written, or an undeclared name, is a fault. */
    public Tensor read(String name) throws StageFault {
        try {
            return state.read(name);
        } catch (Fault f) {
            throw fault(f);
        }
    }

    /** The value of buffer {@code name}, or null when it was never written; an undeclared name is a fault. */
    public Tensor readOrNull(String name) throws StageFault {
        try {
            return state.readOrNull(name);
        } catch (Fault f) {
            throw fault(f);
        }
    }

    /** Replaces the value of buffer {@code name} (a substituted value: a backend's, a perturbed one); it must fit the declaration. */
    public void write(String name, Tensor value) throws StageFault {
        try {
            state.write(name, value);
        } catch (Fault f) {
            throw fault(f);
        }
    }

    /** The declaration of buffer {@code name}; an undeclared name is a fault. */
    public BufferDecl bufferDecl(String name) throws StageFault {
        try {
            return state.bufferDecl(name);
        } catch (Fault f) {
            throw fault(f);
        }
    }

    /** The declaration of tensor {@code name}; an undeclared name is a fault. */
    public TensorDecl tensorDecl(String name) throws StageFault {
        try {
            return state.tensorDecl(name);
        } catch (Fault f) {
            throw fault(f);
        }
    }

    /** The current value of DRAM tensor {@code name}; one never put, or an undeclared name, is a fault. */
    public Tensor tensor(String name) throws StageFault {
        try {
            return state.tensor(name);
        } catch (Fault f) {
            throw fault(f);
        }
    }

    /** Every DRAM tensor held, by name (live: stores update it). */
    public Map<String, Tensor> tensors() {
        return state.tensors();
    }

    /** Puts the value of DRAM tensor {@code name}, handed over: stores update it in place. */
    public void putTensor(String name, Tensor t) {
        state.putTensor(name, t);
    }

    /** Puts the value of DRAM tensor {@code name}, still the caller's: it is copied before a store first writes it. */
    public void putSharedTensor(String name, Tensor t) {
        state.putSharedTensor(name, t);
    }

    /**
     * Substitutes {@code value} for what a multicast Load of {@code group} delivered, so the group's
     * Recv stages receive it (a backend's value of the Load's output).
     */
    public void deliver(String group, Tensor value) {
        state.deliver(group, value);
    }

    /** Ends the worker threads, if any ran. */
    @Override
    public void close() {
        parallel.close();
    }

    private static StageFault fault(Fault f) {
        return new StageFault(f.code(), f.field(), f.buffer(), f.getMessage());
    }
}
