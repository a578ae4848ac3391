package org.stagecheck.interp;

import org.stagecheck.backend.RunResult;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Machine;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.ProgramBuilder;
import org.stagecheck.spec.ir.Rect;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;

/**
 * The project's program builder ({@link ProgramBuilder}) with the tensors and parameter values a
 * run binds, so that each evaluator test reads as a sentence: declare, add stages, run. Every
 * declaration goes to the one builder; this class adds only the bindings and {@link #run}.
 */
public final class Fixtures {
    public static final Site CORE = ProgramBuilder.CORE;

    private final ProgramBuilder program = new ProgramBuilder("test", new Machine(1, 4, 4));
    private final Map<String, Tensor> bound = new HashMap<>();
    private final Map<String, Long> paramValues = new HashMap<>();

    public static Fixtures program() {
        return new Fixtures();
    }

    public Fixtures machine(int chips, int w, int h) {
        program.machine(chips, w, h);
        return this;
    }

    public Fixtures param(String name, long min, long max, long value) {
        program.param(name, min, max);
        paramValues.put(name, value);
        return this;
    }

    /** A tensor declared with the dtype and shape of {@code value}, bound to it when its role is bound before a run. */
    public Fixtures tensor(String name, TensorRole role, int chip, Tensor value) {
        program.tensor(new TensorDecl(name, value.dtype(), value.shape(), chip, role));
        if (role.isBoundBeforeRun()) {
            bound.put(name, value);
        }
        return this;
    }

    public Fixtures input(String name, Tensor value) {
        return tensor(name, TensorRole.INPUT, 0, value);
    }

    public Fixtures output(String name, DType dtype, int... dims) {
        program.tensor(name, dtype, TensorRole.OUTPUT, dims);
        return this;
    }

    public Fixtures buffer(String name, DType dtype, Site site, int... dims) {
        program.bufferAt(name, dtype, site, dims);
        return this;
    }

    public Fixtures buffer(String name, DType dtype, int... dims) {
        return buffer(name, dtype, CORE, dims);
    }

    public Fixtures group(String name, int chip, Rect rect, Site sender) {
        program.group(name, chip, rect, sender);
        return this;
    }

    public Fixtures stage(String id, Site site, List<String> ins, List<String> outs, StageKind kind) {
        program.stageAt(id, site, ins, outs, kind);
        return this;
    }

    public Fixtures stage(String id, List<String> ins, List<String> outs, StageKind kind) {
        return stage(id, CORE, ins, outs, kind);
    }

    /** Load the whole of a declared tensor into a buffer of its shape. */
    public Fixtures loadAll(String id, String tensor, String buffer, Site site) {
        program.loadAll(id, tensor, buffer, site);
        return this;
    }

    public Fixtures storeAll(String id, String buffer, String tensor, Site site) {
        program.storeAll(id, buffer, tensor, site);
        return this;
    }

    public Fixtures compute(String id, List<String> ins, String out, ComputeOp op) {
        program.compute(id, ins, out, op);
        return this;
    }

    public Fixtures generic(String id, List<String> ins, String out, Expr e) {
        program.generic(id, ins, out, e);
        return this;
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
        return program.build();
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
        return ProgramBuilder.at(o);
    }
}
