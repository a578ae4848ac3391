package org.stagecheck.conformance;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
import org.stagecheck.spec.ir.Rect;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.tensor.Tensor;

/**
 * Builds one {@link ConformanceCase} so that each reads as a sentence: declare tensors and
 * buffers, add stages, state the expected tensors. Stages run on {@link #CORE} unless a site is
 * given; the default machine is one chip of 2x2 cores.
 */
public final class CaseBuilder {
    /** The core most cases run on: chip 0, (0, 0). */
    public static final Site CORE = Site.of(0, 0, 0);

    private final String name;
    private final Family family;
    private final String what;
    private Machine machine = new Machine(1, 2, 2);
    private final List<Param> params = new ArrayList<>();
    private final List<TensorDecl> tensors = new ArrayList<>();
    private final List<BufferDecl> buffers = new ArrayList<>();
    private final List<Group> groups = new ArrayList<>();
    private final List<Stage> stages = new ArrayList<>();
    private final Map<String, Tensor> bound = new LinkedHashMap<>();
    private final Map<String, Long> paramValues = new LinkedHashMap<>();
    private final List<Expected> expected = new ArrayList<>();

    private CaseBuilder(Family family, String name, String what) {
        this.family = family;
        this.name = family.prefix() + "/" + name;
        this.what = what;
    }

    /** A case named {@code family/name} that checks the rule {@code what}. */
    public static CaseBuilder of(Family family, String name, String what) {
        return new CaseBuilder(family, name, what);
    }

    public CaseBuilder machine(int chips, int width, int height) {
        machine = new Machine(chips, width, height);
        return this;
    }

    public CaseBuilder param(String param, long min, long max, long value) {
        params.add(new Param(param, min, max));
        paramValues.put(param, value);
        return this;
    }

    /** A tensor of {@code role} on {@code chip}, bound to {@code value}. */
    public CaseBuilder tensor(String tensor, TensorRole role, int chip, Tensor value) {
        tensors.add(new TensorDecl(tensor, value.dtype(), value.shape(), chip, role));
        bound.put(tensor, value);
        return this;
    }

    /** An input tensor on chip 0. */
    public CaseBuilder input(String tensor, Tensor value) {
        return tensor(tensor, TensorRole.INPUT, 0, value);
    }

    /** An output tensor on {@code chip}, unbound (it starts as zeros). */
    public CaseBuilder output(String tensor, int chip, DType dtype, int... dims) {
        tensors.add(new TensorDecl(tensor, dtype, Shape.of(dims), chip, TensorRole.OUTPUT));
        return this;
    }

    /** An output tensor on chip 0, unbound (it starts as zeros). */
    public CaseBuilder output(String tensor, DType dtype, int... dims) {
        return output(tensor, 0, dtype, dims);
    }

    public CaseBuilder buffer(String buffer, DType dtype, Site site, int... dims) {
        buffers.add(new BufferDecl(buffer, dtype, Shape.of(dims), site));
        return this;
    }

    public CaseBuilder buffer(String buffer, DType dtype, int... dims) {
        return buffer(buffer, dtype, CORE, dims);
    }

    public CaseBuilder group(String group, int chip, Rect rect, Site sender) {
        groups.add(new Group(group, chip, rect, sender));
        return this;
    }

    public CaseBuilder stage(String id, Site site, List<String> ins, List<String> outs, StageKind kind) {
        stages.add(new Stage(id, site, ins, outs, kind));
        return this;
    }

    public CaseBuilder stage(String id, List<String> ins, List<String> outs, StageKind kind) {
        return stage(id, CORE, ins, outs, kind);
    }

    /** A Load of the whole of {@code tensor} into {@code buffer}, on the buffer's core. */
    public CaseBuilder loadAll(String id, String tensor, String buffer) {
        TensorDecl t = tensorDecl(tensor);
        return stage(id, bufferDecl(buffer).site(), List.of(), List.of(buffer),
                new StageKind.Load(tensor, new AccessPattern.Block(zeros(t.shape().rank()), t.shape()), 1, null));
    }

    /** A Store of {@code buffer} over the whole of {@code tensor}, on the buffer's core. */
    public CaseBuilder storeAll(String id, String buffer, String tensor) {
        TensorDecl t = tensorDecl(tensor);
        return stage(id, bufferDecl(buffer).site(), List.of(buffer), List.of(),
                new StageKind.Store(tensor, new AccessPattern.Block(zeros(t.shape().rank()), t.shape()), 1, 1));
    }

    /** A Compute stage with one output, on the output buffer's core. */
    public CaseBuilder compute(String id, List<String> ins, String out, ComputeOp op) {
        return stage(id, bufferDecl(out).site(), ins, List.of(out), new StageKind.Compute(op));
    }

    public CaseBuilder generic(String id, List<String> ins, String out, Expr e) {
        return compute(id, ins, out, new ComputeOp.Generic(e));
    }

    /** Expects {@code tensor} to end bit-equal to {@code value} (NaN matching any NaN). */
    public CaseBuilder expect(String tensor, Tensor value) {
        return expect(tensor, value, Tolerance.exact());
    }

    public CaseBuilder expect(String tensor, Tensor value, Tolerance tolerance) {
        expected.add(new Expected(tensor, value, tolerance));
        return this;
    }

    public ConformanceCase build() {
        Program p = new Program(name, machine, params, tensors, buffers, groups, stages);
        return new ConformanceCase(name, family, what, p, bound, paramValues, expected);
    }

    /**
     * A case that loads each input tensor into a buffer of its shape, evaluates {@code e} into a
     * buffer of {@code outDtype} and the expected shape, and stores it to {@code out}.
     */
    public static ConformanceCase elementwise(Family family, String name, String what, List<Tensor> inputs, Expr e, Tensor expected) {
        return elementwise(family, name, what, inputs, e, expected, Tolerance.exact());
    }

    public static ConformanceCase elementwise(Family family, String name, String what, List<Tensor> inputs, Expr e, Tensor expected, Tolerance tolerance) {
        return oneCompute(family, name, what, inputs, "eval", new ComputeOp.Generic(e), expected, tolerance);
    }

    /**
     * A case that loads each input tensor into a buffer of its shape, runs one Compute stage
     * {@code stageId} of {@code op} into a buffer of the expected dtype and shape, and stores it to
     * {@code out}.
     */
    public static ConformanceCase oneCompute(Family family, String name, String what, List<Tensor> inputs, String stageId, ComputeOp op,
                                             Tensor expected, Tolerance tolerance) {
        CaseBuilder b = CaseBuilder.of(family, name, what);
        List<String> ins = new ArrayList<>();
        for (int i = 0; i < inputs.size(); i++) {
            Tensor t = inputs.get(i);
            b.input("x" + i, t).buffer("in" + i, t.dtype(), t.shape().toArray()).loadAll("load" + i, "x" + i, "in" + i);
            ins.add("in" + i);
        }
        return b.output("out", expected.dtype(), expected.shape().toArray())
                .buffer("y", expected.dtype(), expected.shape().toArray())
                .compute(stageId, ins, "y", op)
                .storeAll("store", "y", "out")
                .expect("out", expected, tolerance)
                .build();
    }

    /** Constant offsets, one per axis. */
    public static List<Offset> at(long... offsets) {
        List<Offset> out = new ArrayList<>();
        for (long o : offsets) {
            out.add(Offset.constant(o));
        }
        return out;
    }

    /** The offset {@code coefficient * @buffer + constant}, reading a one-element i32 buffer. */
    public static Offset fromBuffer(String buffer, long coefficient, long constant) {
        return new Offset(constant, List.of(new Offset.Term.OfBuffer(coefficient, buffer)));
    }

    private static List<Offset> zeros(int rank) {
        long[] z = new long[rank];
        return at(z);
    }

    private TensorDecl tensorDecl(String tensor) {
        return tensors.stream().filter(d -> d.name().equals(tensor)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no tensor '" + tensor + "' declared in case " + name));
    }

    private BufferDecl bufferDecl(String buffer) {
        return buffers.stream().filter(d -> d.name().equals(buffer)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no buffer '" + buffer + "' declared in case " + name));
    }
}
