package org.stagecheck.verifier.corpus;

import java.util.ArrayList;
import java.util.List;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Group;
import org.stagecheck.spec.ir.Machine;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Rect;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;

/** A small fixture helper: declarations and stages appended in order, so a test reads as a sentence. */
public final class ProgramBuilder {
    private final String name;
    private final Machine machine;
    private final List<TensorDecl> tensors = new ArrayList<>();
    private final List<BufferDecl> buffers = new ArrayList<>();
    private final List<Group> groups = new ArrayList<>();
    private final List<Stage> stages = new ArrayList<>();

    public ProgramBuilder(String name, Machine machine) {
        this.name = name;
        this.machine = machine;
    }

    public ProgramBuilder tensor(String n, TensorRole role, int chip, int... dims) {
        tensors.add(new TensorDecl(n, DType.F32, Shape.of(dims), chip, role));
        return this;
    }

    public ProgramBuilder buffer(String n, Site site, int... dims) {
        buffers.add(new BufferDecl(n, DType.F32, Shape.of(dims), site));
        return this;
    }

    public ProgramBuilder buffer(String n, DType dtype, Site site, int... dims) {
        buffers.add(new BufferDecl(n, dtype, Shape.of(dims), site));
        return this;
    }

    public ProgramBuilder group(String n, int chip, Rect rect, Site sender) {
        groups.add(new Group(n, chip, rect, sender));
        return this;
    }

    public ProgramBuilder stage(String id, Site site, List<String> ins, List<String> outs, StageKind kind) {
        stages.add(new Stage(id, site, ins, outs, kind));
        return this;
    }

    /** A load of the whole of block {@code dims} at {@code origin} (one offset per axis). */
    public ProgramBuilder load(String id, Site site, String tensor, String out, String multicast, long[] origin, int... dims) {
        List<Offset> o = new ArrayList<>();
        for (long v : origin) {
            o.add(Offset.constant(v));
        }
        return stage(id, site, List.of(), List.of(out),
                new StageKind.Load(tensor, new AccessPattern.Block(o, Shape.of(dims)), 1, multicast));
    }

    public ProgramBuilder store(String id, Site site, String in, String tensor, int... dims) {
        List<Offset> o = new ArrayList<>();
        for (int i = 0; i < dims.length; i++) {
            o.add(Offset.constant(0));
        }
        return stage(id, site, List.of(in), List.of(),
                new StageKind.Store(tensor, new AccessPattern.Block(o, Shape.of(dims)), dims[dims.length - 2], dims[dims.length - 1]));
    }

    public ProgramBuilder matmul(String id, Site site, String a, String b, String out, String bias, String spill) {
        return stage(id, site, List.of(a, b), List.of(out),
                new StageKind.Compute(new ComputeOp.MatMul(false, false, bias, spill)));
    }

    public ProgramBuilder generic(String id, Site site, List<String> ins, String out, Expr e) {
        return stage(id, site, ins, List.of(out), new StageKind.Compute(new ComputeOp.Generic(e)));
    }

    public Program build() {
        return new Program(name, machine, List.of(), tensors, buffers, groups, stages);
    }
}
