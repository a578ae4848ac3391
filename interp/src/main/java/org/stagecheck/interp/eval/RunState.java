package org.stagecheck.interp.eval;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

import org.stagecheck.interp.Precision;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Group;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.TensorDecl;

/**
 * The explicit evaluation context of one run (no static state): the DRAM tensors (owned by the
 * run, updated in place by stores), the core buffers (each write makes a fresh tensor, so a trace
 * may keep references), the pending multicast deliveries, the bound parameters and the options.
 */
public final class RunState {
    private final Program program;
    private final Precision precision;
    private final Parallel parallel;
    private final Map<String, Long> params;
    private final Map<String, BufferDecl> bufferDecls;
    private final Map<String, TensorDecl> tensorDecls;
    private final Map<String, Group> groups;
    private final Map<String, Tensor> tensors = new LinkedHashMap<>();
    private final Map<String, Tensor> buffers = new HashMap<>();
    private final Map<Delivery, Tensor> deliveries = new HashMap<>();
    /** Tensors whose storage is also referenced elsewhere (the caller's binding, a buffer value): copied before a write. */
    private final java.util.Set<String> shared = new java.util.HashSet<>();

    /** A multicast delivery waiting at one receiver of one group. */
    private record Delivery(String group, Site receiver) {}

    public RunState(Program program, Precision precision, Parallel parallel, Map<String, Long> params) {
        this.program = program;
        this.precision = precision;
        this.parallel = parallel;
        this.params = Map.copyOf(params);
        this.bufferDecls = program.buffersByName();
        this.tensorDecls = program.tensorsByName();
        this.groups = program.groupsByName();
    }

    public Program program() {
        return program;
    }

    public boolean f64() {
        return precision == Precision.F64;
    }

    public Parallel parallel() {
        return parallel;
    }

    public Map<String, Tensor> tensors() {
        return tensors;
    }

    public void putTensor(String name, Tensor t) {
        tensors.put(name, t);
    }

    /** Installs a tensor whose storage the run does not own: it is copied before its first write. */
    public void putSharedTensor(String name, Tensor t) {
        tensors.put(name, t);
        shared.add(name);
    }

    /** Marks tensor {@code name} as referenced by a buffer value, so a later store copies it first. */
    void markShared(String name) {
        shared.add(name);
    }

    /** Tensor {@code name} ready to be updated in place (copy-on-write: no value already handed out changes). */
    Tensor tensorForWrite(String name) throws Fault {
        Tensor t = tensor(name);
        if (shared.remove(name)) {
            t = copyOf(t);
            tensors.put(name, t);
        }
        return t;
    }

    private static Tensor copyOf(Tensor t) {
        return t.copy();
    }

    /** The value of parameter {@code name} (bound and range-checked before the run). */
    public long param(String name) throws Fault {
        Long v = params.get(name);
        if (v == null) {
            throw new Fault("PARAM_UNBOUND", "parameter '" + name + "' is not a declared, bound parameter of the program.");
        }
        return v;
    }

    public Group group(String name) throws Fault {
        Group g = groups.get(name);
        if (g == null) {
            throw new Fault("UNKNOWN_GROUP", "group '" + name + "' is not declared.");
        }
        return g;
    }

    public TensorDecl tensorDecl(String name) throws Fault {
        TensorDecl t = tensorDecls.get(name);
        if (t == null) {
            throw new Fault("UNKNOWN_TENSOR", "tensor '" + name + "' is not declared.");
        }
        return t;
    }

    /** The run's working copy of DRAM tensor {@code name}. */
    public Tensor tensor(String name) throws Fault {
        tensorDecl(name);
        Tensor t = tensors.get(name);
        if (t == null) {
            throw new Fault("MISSING_INPUT", "tensor '" + name + "' has no value.");
        }
        return t;
    }

    public BufferDecl bufferDecl(String name) throws Fault {
        BufferDecl b = bufferDecls.get(name);
        if (b == null) {
            throw new Fault("UNKNOWN_BUFFER", null, name, "buffer '" + name + "' is not declared.");
        }
        return b;
    }

    /** The current value of buffer {@code name}; reading a buffer no stage has written is a fault. */
    public Tensor read(String name) throws Fault {
        bufferDecl(name);
        Tensor t = buffers.get(name);
        if (t == null) {
            throw new Fault("READ_BEFORE_WRITE", null, name, "buffer '" + name + "' is read before any stage wrote it.");
        }
        return t;
    }

    /** The current value of buffer {@code name}, or null when it was never written. */
    public Tensor readOrNull(String name) throws Fault {
        bufferDecl(name);
        return buffers.get(name);
    }

    /** Replaces the value of buffer {@code name}; the tensor must have the declared shape. */
    public void write(String name, Tensor value) throws Fault {
        BufferDecl d = bufferDecl(name);
        if (value.size() != d.shape().elementCount()) {
            throw new Fault("BUFFER_SHAPE", null, name, "buffer '" + name + "' is declared " + d.shape()
                    + " but the stage produced " + value.shape() + ".");
        }
        buffers.put(name, value.shape().equals(d.shape()) ? value : value.reshaped(d.shape()));
    }

    /** A fresh, zeroed tensor for a buffer or tensor of {@code dtype}/{@code shape} in this run's mode. */
    public Tensor fresh(DType dtype, Shape shape) {
        return f64() && dtype.isFloating() ? Tensor.zerosFloat64(dtype, shape) : Tensor.zeros(dtype, shape);
    }

    public void deliver(String group, Site receiver, Tensor value) {
        deliveries.put(new Delivery(group, receiver), value);
    }

    /** The latest delivery of {@code group} to {@code receiver}, or null. */
    public Tensor delivered(String group, Site receiver) {
        return deliveries.get(new Delivery(group, receiver));
    }
}
