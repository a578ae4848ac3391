package org.stagecheck.spec.ir;

import java.util.ArrayList;
import java.util.List;

/**
 * Builds a {@link Program} by appending declarations and stages in order, so that a program
 * written by hand (a test's fixture, a counter-example, a user's own) reads as a sentence:
 * {@code program().tensor(...).buffer(...).stage(...).build()}. It checks nothing: whether the
 * result is well formed is the validator's judgement.
 *
 * <p>Defaults: the name {@code "program"}, a machine of one chip of one core, and every stage on
 * {@link #CORE} unless given a site. Shorthands cover the commonest stages: a whole-block
 * {@link #load}/{@link #store}, {@link #compute}, {@link #generic} and {@link #matmul}.
 */
public final class ProgramBuilder {
    /** Core (0, 0) of chip 0: where a stage runs and a buffer lives unless a site is given. */
    public static final Site CORE = Site.of(0, 0, 0);

    private String name;
    private Machine machine;
    private final List<Param> params = new ArrayList<>();
    private final List<TensorDecl> tensors = new ArrayList<>();
    private final List<BufferDecl> buffers = new ArrayList<>();
    private final List<Group> groups = new ArrayList<>();
    private final List<Stage> stages = new ArrayList<>();

    public ProgramBuilder(String name, Machine machine) {
        this.name = name;
        this.machine = machine;
    }

    /** A builder of a program named "program" on one chip of one core. */
    public static ProgramBuilder program() {
        return new ProgramBuilder("program", new Machine(1, 1, 1));
    }

    public ProgramBuilder named(String newName) {
        this.name = newName;
        return this;
    }

    public ProgramBuilder machine(int chips, int width, int height) {
        this.machine = new Machine(chips, width, height);
        return this;
    }

    public ProgramBuilder param(String paramName, long min, long max) {
        params.add(new Param(paramName, min, max));
        return this;
    }

    public ProgramBuilder tensor(TensorDecl t) {
        tensors.add(t);
        return this;
    }

    /** A tensor on chip 0. */
    public ProgramBuilder tensor(String tensorName, DType dtype, TensorRole role, int... dims) {
        return tensor(new TensorDecl(tensorName, dtype, Shape.of(dims), 0, role));
    }

    /** An f32 tensor on {@code chip}. */
    public ProgramBuilder tensor(String tensorName, TensorRole role, int chip, int... dims) {
        return tensor(new TensorDecl(tensorName, DType.F32, Shape.of(dims), chip, role));
    }

    public ProgramBuilder buffer(BufferDecl b) {
        buffers.add(b);
        return this;
    }

    /** A buffer on {@link #CORE}. */
    public ProgramBuilder buffer(String bufferName, DType dtype, int... dims) {
        return bufferAt(bufferName, dtype, CORE, dims);
    }

    public ProgramBuilder bufferAt(String bufferName, DType dtype, Site site, int... dims) {
        return buffer(new BufferDecl(bufferName, dtype, Shape.of(dims), site));
    }

    public ProgramBuilder buffer(String bufferName, DType dtype, Site site, int... dims) {
        return bufferAt(bufferName, dtype, site, dims);
    }

    /** An f32 buffer at {@code site}. */
    public ProgramBuilder buffer(String bufferName, Site site, int... dims) {
        return bufferAt(bufferName, DType.F32, site, dims);
    }

    public ProgramBuilder group(Group g) {
        groups.add(g);
        return this;
    }

    public ProgramBuilder group(String groupName, int chip, Rect rect, Site sender) {
        return group(new Group(groupName, chip, rect, sender));
    }

    public ProgramBuilder stage(Stage s) {
        stages.add(s);
        return this;
    }

    /** A stage on {@link #CORE}. */
    public ProgramBuilder stage(String id, List<String> ins, List<String> outs, StageKind kind) {
        return stageAt(id, CORE, ins, outs, kind);
    }

    public ProgramBuilder stageAt(String id, Site site, List<String> ins, List<String> outs, StageKind kind) {
        return stage(new Stage(id, site, ins, outs, kind));
    }

    public ProgramBuilder stage(String id, Site site, List<String> ins, List<String> outs, StageKind kind) {
        return stageAt(id, site, ins, outs, kind);
    }

    /** A load of one block of {@code dims} at the constant {@code origin} (one offset per axis), optionally multicast. */
    public ProgramBuilder load(String id, Site site, String tensor, String out, String multicast, long[] origin, int... dims) {
        return stageAt(id, site, List.of(), List.of(out),
                new StageKind.Load(tensor, new AccessPattern.Block(at(origin), Shape.of(dims)), 1, multicast));
    }

    /** A load of the whole of a declared tensor into {@code buffer}. */
    public ProgramBuilder loadAll(String id, String tensor, String buffer, Site site) {
        Shape shape = declared(tensor).shape();
        return stageAt(id, site, List.of(), List.of(buffer), load(tensor, block(shape.toArray())));
    }

    /** A store of the whole of a declared tensor from {@code buffer}, as one sub-block. */
    public ProgramBuilder storeAll(String id, String buffer, String tensor, Site site) {
        Shape shape = declared(tensor).shape();
        return stageAt(id, site, List.of(buffer), List.of(), new StageKind.Store(tensor, block(shape.toArray()), 1, 1));
    }

    /** A store of a block of {@code dims} at the origin, as sub-blocks of its last two extents. */
    public ProgramBuilder store(String id, Site site, String in, String tensor, int... dims) {
        return stageAt(id, site, List.of(in), List.of(),
                new StageKind.Store(tensor, block(dims), dims[dims.length - 2], dims[dims.length - 1]));
    }

    public ProgramBuilder compute(String id, List<String> ins, String out, ComputeOp op) {
        return stage(id, ins, List.of(out), new StageKind.Compute(op));
    }

    public ProgramBuilder generic(String id, List<String> ins, String out, Expr e) {
        return compute(id, ins, out, new ComputeOp.Generic(e));
    }

    public ProgramBuilder generic(String id, Site site, List<String> ins, String out, Expr e) {
        return stageAt(id, site, ins, List.of(out), new StageKind.Compute(new ComputeOp.Generic(e)));
    }

    /** {@code out = a . b (+ bias)}, no transposes, with an optional spill. */
    public ProgramBuilder matmul(String id, Site site, String a, String b, String out, String bias, String spill) {
        return stageAt(id, site, List.of(a, b), List.of(out), new StageKind.Compute(new ComputeOp.MatMul(false, false, bias, spill)));
    }

    /** The declaration of a tensor added so far. */
    public TensorDecl declared(String tensor) {
        return tensors.stream().filter(d -> d.name().equals(tensor)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no tensor '" + tensor + "' is declared yet"));
    }

    public Program build() {
        return new Program(name, machine, params, tensors, buffers, groups, stages);
    }

    /** A block of {@code shape} at the origin. */
    public static AccessPattern.Block block(int... shape) {
        return new AccessPattern.Block(at(new long[shape.length]), Shape.of(shape));
    }

    /** A plain load (one block, no multicast) of {@code tensor} through {@code pattern}. */
    public static StageKind.Load load(String tensor, AccessPattern pattern) {
        return new StageKind.Load(tensor, pattern, 1, null);
    }

    /** Constant offsets, one per axis. */
    public static List<Offset> at(long... origin) {
        List<Offset> out = new ArrayList<>(origin.length);
        for (long v : origin) {
            out.add(Offset.constant(v));
        }
        return out;
    }
}
