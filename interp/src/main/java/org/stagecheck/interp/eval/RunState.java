package org.stagecheck.interp.eval;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.stagecheck.backend.FaultCode;
import org.stagecheck.interp.Precision;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.InternalRef;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Group;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.rules.OpRules;
import org.stagecheck.spec.rules.Rule;

/**
 * The explicit evaluation context of one run (no static state): the DRAM tensors (owned by the
 * run, updated in place by stores), the core buffers (each write makes a new value, so a trace
 * may keep references; in a prepared program's untraced run their storage may come from its
 * {@link BufferArena}), the pending multicast deliveries, the bound parameters and the options.
 */
public final class RunState {
    private final Program program;
    private final Precision precision;
    private final Parallel parallel;
    private final Map<String, Long> params;
    private final BufferIndex bufferIndex;
    private final Map<String, TensorDecl> tensorDecls;
    private final Map<String, Group> groups;
    private final Map<String, Tensor> tensors = new LinkedHashMap<>();
    /** Each buffer's value, by its number in {@link #bufferIndex}; null when unwritten (or a pending view). */
    private final Tensor[] values;
    /** Buffers whose value is still a block of a DRAM tensor (see {@link BlockView}); copied on first read. */
    private final BlockView[] views;
    private int pendingViews;
    /**
     * The latest multicast delivery of each group, by group name: a Load delivers one value to
     * every receiver of its group at once, so the latest delivery to any receiver is the group's.
     */
    private final Map<String, Tensor> deliveries = new HashMap<>();
    /** Tensors whose storage is also referenced elsewhere (the caller's binding, a buffer value): copied before a write. */
    private final java.util.Set<String> shared = new java.util.HashSet<>();

    private final ShapeCache shapes;
    private Scratch scratch;
    private boolean warm;
    /** Storage kept from run to run for the values stages write, or null: every value fresh. */
    private final BufferArena arena;
    /** Per stage, what resolves the same in every run (see {@link StagePlans}), or null: resolved every time. */
    private final StagePlans plans;
    /** The index of the stage running now, and how many arena slots it has taken. */
    private int stage;
    private int slotsTaken;

    public RunState(Program program, Precision precision, Parallel parallel, Map<String, Long> params) {
        this(program, program.buffersByName(), program.tensorsByName(), program.groupsByName(), new ShapeCache(),
                precision, parallel, params);
    }

    /**
     * A run of a prepared program: the declarations by name and the shape cache are the
     * program's, made once and shared (read-only) by all its runs.
     */
    public RunState(Program program, Map<String, BufferDecl> buffers, Map<String, TensorDecl> tensors,
                    Map<String, Group> groups, ShapeCache shapes, Precision precision, Parallel parallel,
                    Map<String, Long> params) {
        this(program, new BufferIndex(buffers), tensors, groups, shapes, null, null, precision, parallel, params);
    }

    /**
     * A run of a prepared program that also reuses storage and per-stage resolutions: {@code arena}
     * (lent to this run alone, or null) holds the storage of the values stages write, and
     * {@code plans} (shared by the program's runs, or null) what each stage resolves the same way
     * every time. The caller announces each stage with {@link #enterStage} before running it.
     */
    public RunState(Program program, BufferIndex buffers, Map<String, TensorDecl> tensors,
                    Map<String, Group> groups, ShapeCache shapes, BufferArena arena, StagePlans plans,
                    Precision precision, Parallel parallel, Map<String, Long> params) {
        this.arena = arena;
        this.plans = plans;
        this.program = program;
        this.precision = precision;
        this.parallel = parallel;
        this.params = Map.copyOf(params);
        this.bufferIndex = buffers;
        this.values = new Tensor[buffers.size()];
        this.views = new BlockView[buffers.size()];
        this.tensorDecls = tensors;
        this.groups = groups;
        this.shapes = shapes;
    }

    /**
     * Whether this run's program has run often enough that kernels worth compiling for it are
     * taken at every size (see {@code MatMulKernel.vectorFor}); false for a program run once.
     */
    boolean warm() {
        return warm;
    }

    /** Marks this run as one of a program run again and again (set before the first stage). */
    public void markWarm() {
        warm = true;
    }

    /** Index arrays that depend only on shapes, shared by the runs of one prepared program. */
    ShapeCache shapes() {
        return shapes;
    }

    /**
     * The working columns of this run (compiled expressions, a matmul's packed panel), taken from
     * the prepared program's pool on first use and kept for the whole run: stages run one at a
     * time, and each uses them only while it runs.
     */
    Scratch scratch() {
        if (scratch == null) {
            scratch = shapes.takeScratch();
        }
        return scratch;
    }

    /** Gives this run's working columns back to the pool (the run is over; a later use takes them again). */
    public void releaseScratch() {
        if (scratch != null) {
            shapes.giveBack(scratch);
            scratch = null;
        }
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
            throw new Fault(FaultCode.PARAM_UNBOUND, "parameter '" + name + "' is not a declared, bound parameter of the program.");
        }
        return v;
    }

    public Group group(String name) throws Fault {
        Group g = groups.get(name);
        if (g == null) {
            throw new Fault(Rule.UNKNOWN_GROUP, "group '" + name + "' is not declared.");
        }
        return g;
    }

    public TensorDecl tensorDecl(String name) throws Fault {
        TensorDecl t = tensorDecls.get(name);
        if (t == null) {
            throw new Fault(Rule.UNKNOWN_TENSOR, "tensor '" + name + "' is not declared.");
        }
        return t;
    }

    /** The run's working copy of DRAM tensor {@code name}. */
    public Tensor tensor(String name) throws Fault {
        tensorDecl(name);
        Tensor t = tensors.get(name);
        if (t == null) {
            throw new Fault(FaultCode.MISSING_INPUT, "tensor '" + name + "' has no value.");
        }
        return t;
    }

    public BufferDecl bufferDecl(String name) throws Fault {
        return bufferIndex.decl(position(name));
    }

    /** The number of buffer {@code name}; an undeclared name is a fault. */
    private int position(String name) throws Fault {
        int p = bufferIndex.position(name);
        if (p < 0) {
            throw new Fault(Rule.UNKNOWN_BUFFER, null, name, "buffer '" + name + "' is not declared.");
        }
        return p;
    }

    /** The current value of buffer {@code name}; reading a buffer no stage has written is a fault. */
    public Tensor read(String name) throws Fault {
        Tensor t = valueOf(position(name));
        if (t == null) {
            throw new Fault(FaultCode.READ_BEFORE_WRITE, null, name, "buffer '" + name + "' is read before any stage wrote it.");
        }
        return t;
    }

    /** The current value of buffer {@code name}, or null when it was never written. */
    public Tensor readOrNull(String name) throws Fault {
        return valueOf(position(name));
    }

    /** The buffer's value, copying a pending view's block first (once). */
    private Tensor valueOf(int p) {
        BlockView v = views[p];
        if (v != null) {
            views[p] = null;
            pendingViews--;
            values[p] = v.materialize(this);
        }
        return values[p];
    }

    /**
     * The pending view that is buffer {@code name}'s value, or null when its value is a tensor
     * (or it has none); a caller that reads the block in place uses this instead of {@link #read}.
     */
    BlockView viewOrNull(String name) throws Fault {
        int p = position(name);
        return pendingViews == 0 ? null : views[p];
    }

    /**
     * Makes a block of DRAM tensor {@code tensor} the value of buffer {@code name} without copying
     * it: the tensor becomes shared, so a later store copies it first.
     */
    void writeView(String name, String tensor, BlockView view) throws Fault {
        markShared(tensor);
        writeView(name, view);
    }

    /**
     * Makes a block of another value the value of buffer {@code name} without copying it. Values
     * never change once written, and a stage's arena slot is written once per run, so the block
     * keeps its elements for the rest of the run (a view never outlives its run).
     */
    void writeView(String name, BlockView view) throws Fault {
        int p = position(name);
        values[p] = null;
        if (views[p] == null) {
            pendingViews++;
        }
        views[p] = view;
    }

    /** Replaces the value of buffer {@code name}; the tensor must have the declared shape. */
    public void write(String name, Tensor value) throws Fault {
        int p = position(name);
        BufferDecl d = bufferIndex.decl(p);
        if (value.shape() != d.shape()) {
            // a value not made for this buffer (RunState.output gives the declared shape object): check and reshape it
            if (value.size() != d.shape().elementCount()) {
                throw new Fault(FaultCode.BUFFER_SHAPE, null, name, "buffer '" + name + "' is declared " + d.shape()
                        + " but the stage produced " + value.shape() + ".");
            }
            if (!value.shape().equals(d.shape())) {
                value = value.reshaped(d.shape());
            }
        }
        if (views[p] != null) {
            views[p] = null;
            pendingViews--;
        }
        values[p] = value;
    }

    /** Announces that stage {@code index} of the program runs next (arena slots and plans are per stage). */
    public void enterStage(int index) {
        stage = index;
        slotsTaken = 0;
    }

    /**
     * Holds the running Compute stage's op to the language's shape and dtype rules
     * ({@link OpRules}, the validator's), on the declarations: once per prepared program, since
     * declarations never change between runs. A broken rule is a fault under its code.
     */
    void holdToRules(Stage st, ComputeOp op) throws Fault {
        if (plans != null && plans.ruled(stage)) {
            return;
        }
        Fault.throwFirst(OpRules.ports(op, st.ins().size(), st.outs().size()));
        List<BufferDecl> ins = new ArrayList<>(st.ins().size());
        for (String name : st.ins()) {
            ins.add(bufferDecl(name));
        }
        BufferDecl out = bufferDecl(st.outs().getFirst());
        Map<String, BufferDecl> named = new HashMap<>();
        for (InternalRef ref : op.internalRefs()) {
            named.put(ref.buffer(), bufferDecl(ref.buffer()));
        }
        Fault.throwFirst(OpRules.check(op, ins, out, named::get));
        if (plans != null) {
            plans.keepRuled(stage);
        }
    }

    /** The region the running stage resolved in an earlier run, when it depends on no run's values; or null. */
    Region plannedRegion() {
        List<Region> r = plannedRegions();
        return r == null ? null : r.getFirst();
    }

    /** The regions the running stage resolved in an earlier run, when they depend on no run's values; or null. */
    List<Region> plannedRegions() {
        return plans == null ? null : plans.regions(stage);
    }

    /** Keeps {@code region} for the running stage's later runs: only for a region that no parameter or buffer moves. */
    void planRegion(Region region) {
        planRegions(List.of(region));
    }

    /** Keeps {@code regions} for the running stage's later runs (as {@link #planRegion}). */
    void planRegions(List<Region> regions) {
        if (plans != null) {
            plans.keepRegions(stage, regions);
        }
    }

    /**
     * A tensor of {@code dtype}/{@code shape} in this run's mode for a value the running stage
     * writes, every element of which the caller overwrites: from the arena when the run has one
     * (its contents are a previous run's until overwritten), otherwise fresh.
     */
    public Tensor output(DType dtype, Shape shape) {
        if (arena == null) {
            return fresh(dtype, shape);
        }
        return arena.take(stage, slotsTaken++, dtype, shape, f64());
    }

    /** A fresh, zeroed tensor for a buffer or tensor of {@code dtype}/{@code shape} in this run's mode. */
    public Tensor fresh(DType dtype, Shape shape) {
        return f64() && dtype.isFloating() ? Tensor.zerosFloat64(dtype, shape) : Tensor.zeros(dtype, shape);
    }

    /** Delivers {@code value} to every receiver of {@code group} (a multicast Load). */
    public void deliver(String group, Tensor value) {
        deliveries.put(group, value);
    }

    /** The latest delivery of {@code group}, which every one of its receivers holds, or null. */
    public Tensor delivered(String group) {
        return deliveries.get(group);
    }

    /** The receiving cores of {@code group}, made once per prepared program. */
    java.util.Set<Site> receivers(Group group) {
        return plans == null ? java.util.Set.copyOf(group.receivers()) : plans.receivers(group);
    }
}
