package org.stagecheck.interp;

import org.stagecheck.backend.RunResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Group;
import org.stagecheck.spec.ir.Machine;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;

/** Small builders so that each test reads as a sentence: declare, add stages, run. */
public final class Fixtures {
    public static final Site CORE = Site.of(0, 0, 0);

    private Machine machine = new Machine(1, 4, 4);
    private final List<Param> params = new ArrayList<>();
    private final List<TensorDecl> tensors = new ArrayList<>();
    private final List<BufferDecl> buffers = new ArrayList<>();
    private final List<Group> groups = new ArrayList<>();
    private final List<Stage> stages = new ArrayList<>();
    private final Map<String, Tensor> bound = new HashMap<>();
    private final Map<String, Long> paramValues = new HashMap<>();

    public static Fixtures program() {
        return new Fixtures();
    }

    public Fixtures machine(int chips, int w, int h) {
        machine = new Machine(chips, w, h);
        return this;
    }

    public Fixtures param(String name, long min, long max, long value) {
        params.add(new Param(name, min, max));
        paramValues.put(name, value);
        return this;
    }

    /** A tensor bound to {@code value} (role input/weight/state) or declared only (value null). */
    public Fixtures tensor(String name, TensorRole role, int chip, Tensor value) {
        tensors.add(new TensorDecl(name, value.dtype(), value.shape(), chip, role));
        if (role.isBoundBeforeRun()) {
            bound.put(name, value);
        }
        return this;
    }

    public Fixtures input(String name, Tensor value) {
        return tensor(name, TensorRole.INPUT, 0, value);
    }

    public Fixtures output(String name, DType dtype, int... dims) {
        tensors.add(new TensorDecl(name, dtype, Shape.of(dims), 0, TensorRole.OUTPUT));
        return this;
    }

    public Fixtures buffer(String name, DType dtype, Site site, int... dims) {
        buffers.add(new BufferDecl(name, dtype, Shape.of(dims), site));
        return this;
    }

    public Fixtures buffer(String name, DType dtype, int... dims) {
        return buffer(name, dtype, CORE, dims);
    }

    public Fixtures group(String name, int chip, org.stagecheck.spec.ir.Rect rect, Site sender) {
        groups.add(new Group(name, chip, rect, sender));
        return this;
    }

    public Fixtures stage(String id, Site site, List<String> ins, List<String> outs, StageKind kind) {
        stages.add(new Stage(id, site, ins, outs, kind));
        return this;
    }

    public Fixtures stage(String id, List<String> ins, List<String> outs, StageKind kind) {
        return stage(id, CORE, ins, outs, kind);
    }

    /** Load the whole of a 2-D-or-any tensor into a buffer of its shape. */
    public Fixtures loadAll(String id, String tensor, String buffer, Site site) {
        TensorDecl t = tensors.stream().filter(d -> d.name().equals(tensor)).findFirst().orElseThrow();
        List<Offset> zero = t.shape().dims().stream().map(d -> Offset.constant(0)).toList();
        return stage(id, site, List.of(), List.of(buffer), new StageKind.Load(tensor, new AccessPattern.Block(zero, t.shape()), 1, null));
    }

    public Fixtures storeAll(String id, String buffer, String tensor, Site site) {
        TensorDecl t = tensors.stream().filter(d -> d.name().equals(tensor)).findFirst().orElseThrow();
        List<Offset> zero = t.shape().dims().stream().map(d -> Offset.constant(0)).toList();
        return stage(id, site, List.of(buffer), List.of(), new StageKind.Store(tensor, new AccessPattern.Block(zero, t.shape()), 1, 1));
    }

    public Fixtures compute(String id, List<String> ins, String out, ComputeOp op) {
        return stage(id, ins, List.of(out), new StageKind.Compute(op));
    }

    public Fixtures generic(String id, List<String> ins, String out, Expr e) {
        return compute(id, ins, out, new ComputeOp.Generic(e));
    }

    public Fixtures bind(String name, Tensor t) {
        bound.put(name, t);
        return this;
    }

    public Fixtures unbind(String name) {
        bound.remove(name);
        return this;
    }

    public Program build() {
        return new Program("test", machine, params, tensors, buffers, groups, stages);
    }

    public Map<String, Tensor> bound() {
        return bound;
    }

    public Map<String, Long> params() {
        return paramValues;
    }

    public RunResult run(RunOptions options) {
        return new Interpreter(options).run(build(), bound, paramValues);
    }

    public RunResult run() {
        return run(RunOptions.defaults().withTrace(true));
    }

    public static Tensor f32(int[] dims, float... v) {
        return Tensor.fromFloats(DType.F32, Shape.of(dims), v);
    }

    public static Tensor i32(int[] dims, int... v) {
        return Tensor.fromInts(Shape.of(dims), v);
    }

    public static int[] dims(int... d) {
        return d;
    }

    public static List<Offset> at(long... o) {
        List<Offset> out = new ArrayList<>();
        for (long x : o) {
            out.add(Offset.constant(x));
        }
        return out;
    }
}
