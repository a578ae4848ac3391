package org.stagecheck.author.build;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
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
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.ScalarBody;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.spec.rules.OpRules;
import org.stagecheck.spec.rules.Violation;

/**
 * Accumulates a program's declarations and stages in reference order (brief, "Stages"), with
 * fresh buffer, group and stage names, so the cut writers read as the model's math. Each helper
 * declares the output buffer it needs (dtype and shape worked out from the op) and appends one
 * stage. Output shapes and dtypes come from the language's rules ({@link OpRules}), and each
 * compute stage is held to those rules as it is added: a helper asked for an op the validator would
 * refuse throws {@link IllegalArgumentException} naming the rule's code. A duplicate tensor name is
 * refused too.
 */
public final class ProgramBuilder {
    private final String name;
    private final Machine machine;
    private final List<Param> params = new ArrayList<>();
    private final Map<String, TensorDecl> tensors = new LinkedHashMap<>();
    private final Map<String, BufferDecl> buffers = new LinkedHashMap<>();
    private final List<Group> groups = new ArrayList<>();
    private final List<Stage> stages = new ArrayList<>();
    private final Map<String, Integer> used = new HashMap<>();

    public ProgramBuilder(String name, Machine machine) {
        this.name = name;
        this.machine = machine;
    }

    public Machine machine() {
        return machine;
    }

    public void param(String paramName, long min, long max) {
        params.add(new Param(paramName, min, max));
    }

    /** Declares DRAM tensor {@code tensorName} (which must be new) and returns its name. */
    public String tensor(String tensorName, DType dtype, Shape shape, int chip, TensorRole role) {
        if (tensors.containsKey(tensorName)) {
            throw new IllegalStateException("tensor " + tensorName + " declared twice");
        }
        tensors.put(tensorName, new TensorDecl(tensorName, dtype, shape, chip, role));
        return tensorName;
    }

    /** A scratch tensor with a fresh name derived from {@code hint}. */
    public String scratch(String hint, DType dtype, Shape shape, int chip) {
        return tensor(fresh(hint), dtype, shape, chip, TensorRole.SCRATCH);
    }

    public TensorDecl tensorDecl(String tensorName) {
        return tensors.get(tensorName);
    }

    public BufferDecl buffer(String bufferName) {
        return buffers.get(bufferName);
    }

    public Shape shape(String bufferName) {
        return buffers.get(bufferName).shape();
    }

    public Site site(String bufferName) {
        return buffers.get(bufferName).site();
    }

    /** Declares a buffer with a fresh name derived from {@code hint}. */
    public String newBuffer(String hint, DType dtype, Shape shape, Site site) {
        String n = fresh(hint);
        buffers.put(n, new BufferDecl(n, dtype, shape, site));
        return n;
    }

    /** Declares a multicast group over {@code rect} of {@code sender}'s chip. */
    public String group(String hint, Rect rect, Site sender) {
        String n = fresh(hint);
        groups.add(new Group(n, sender.chip(), rect, sender));
        return n;
    }

    public void stage(String hint, Site site, List<String> ins, List<String> outs, StageKind kind) {
        stages.add(new Stage(fresh(hint), site, ins, outs, kind));
    }

    // ------------------------------------------------------------------ data movement

    /** Loads one block of {@code tensor} at {@code origin} into a new buffer of the block's shape. */
    public String loadBlock(String hint, Site site, String tensor, List<Offset> origin, Shape block) {
        String out = newBuffer(hint, tensors.get(tensor).dtype(), block, site);
        stage("load_" + hint, site, List.of(), List.of(out),
                new StageKind.Load(tensor, new AccessPattern.Block(origin, block), 1, null));
        return out;
    }

    /** Loads the whole of {@code tensor}. */
    public String loadAll(String hint, Site site, String tensor) {
        Shape s = tensors.get(tensor).shape();
        return loadBlock(hint, site, tensor, zeros(s.rank()), s);
    }

    /** Loads rows of {@code tensor} chosen by the i32 index buffer {@code index} (shape {@code [n]}). */
    public String loadIndirect(String hint, Site site, String tensor, String index) {
        Shape s = tensors.get(tensor).shape();
        Shape window = new Shape(s.dims().subList(1, s.rank()));
        List<Integer> dims = new ArrayList<>();
        dims.add(shape(index).dim(0));
        dims.addAll(window.dims());
        String out = newBuffer(hint, tensors.get(tensor).dtype(), new Shape(dims), site);
        stage("gather_" + hint, site, List.of(), List.of(out),
                new StageKind.Load(tensor, new AccessPattern.Indirect(index, zeros(window.rank()), window), 1, null));
        return out;
    }

    /**
     * Loads the whole of {@code tensor} on {@code sender} and multicasts it over {@code rect}: the
     * sender's buffer first, then one Recv per receiver. Returns the buffer on every core of the
     * rectangle (the sender's included), keyed by site.
     */
    public Map<Site, String> loadMulticast(String hint, Site sender, String tensor, Rect rect) {
        Shape s = tensors.get(tensor).shape();
        DType dt = tensors.get(tensor).dtype();
        String g = group("mc_" + hint, rect, sender);
        Map<Site, String> out = new LinkedHashMap<>();
        String home = newBuffer(hint, dt, s, sender);
        stage("mcast_" + hint, sender, List.of(), List.of(home),
                new StageKind.Load(tensor, new AccessPattern.Block(zeros(s.rank()), s), 1, g));
        out.put(sender, home);
        for (Group grp : groups) {
            if (grp.name().equals(g)) {
                for (Site r : grp.receivers()) {
                    String b = newBuffer(hint, dt, s, r);
                    stage("recv_" + hint, r, List.of(), List.of(b), new StageKind.Recv(g));
                    out.put(r, b);
                }
            }
        }
        return out;
    }

    /** Stores {@code buffer} as the block of {@code tensor} at {@code origin}, as one sub-block. */
    public void storeBlock(String hint, String buffer, String tensor, List<Offset> origin) {
        Shape s = shape(buffer);
        int[] sub = subBlock(s);
        stage("store_" + hint, site(buffer), List.of(buffer), List.of(),
                new StageKind.Store(tensor, new AccessPattern.Block(origin, s), sub[0], sub[1]));
    }

    /** Stores {@code buffer} as the whole of {@code tensor}. */
    public void storeAll(String hint, String buffer, String tensor) {
        storeBlock(hint, buffer, tensor, zeros(shape(buffer).rank()));
    }

    /** Sub-block of a whole block: the last two axes (a rank-1 block is one row). */
    private static int[] subBlock(Shape s) {
        return switch (s.rank()) {
            case 0 -> new int[] {1, 1};
            case 1 -> new int[] {1, s.dim(0)};
            // a rank is an open int: every rank from 2 up takes its last two axes
            default -> new int[] {s.dim(s.rank() - 2), s.dim(s.rank() - 1)};
        };
    }

    // ------------------------------------------------------------------ compute

    /** An elementwise stage {@code expr} over {@code ins}, output of {@code dtype} and {@code shape}. */
    public String generic(String hint, Expr expr, DType dtype, Shape shape, String... ins) {
        Site site = site(ins[0]);
        String out = newBuffer(hint, dtype, shape, site);
        compute(hint, site, List.of(ins), out, new ComputeOp.Generic(expr));
        return out;
    }

    /** {@code a x op(b)}, with b transposed when {@code transposeB}; f32 output of the product's shape. */
    public String matmul(String hint, String a, String b, boolean transposeB) {
        OpRules.Product p = OpRules.product(shape(a), shape(b), false, transposeB);
        ComputeOp.MatMul op = new ComputeOp.MatMul(false, transposeB, null, null);
        // operands that do not multiply get the first operand's shape: the rule check below names why
        String out = newBuffer(hint, DType.F32, p == null ? shape(a) : p.shape(), site(a));
        compute(hint, site(a), List.of(a, b), out, op);
        return out;
    }

    /** {@code fn} along {@code axis}, keeping the axis with extent 1 (ARGMAX gives i32). */
    public String reduce(String hint, ReduceFn fn, int axis, String in) {
        Shape s = axis >= 0 && axis < shape(in).rank() ? OpRules.reduceShape(shape(in), axis) : shape(in);
        String out = newBuffer(hint, OpRules.reduceDtype(fn, buffers.get(in).dtype()), s, site(in));
        compute(hint, site(in), List.of(in), out, new ComputeOp.Reduce(fn, axis));
        return out;
    }

    public String reshape(String hint, String in, Shape to) {
        String out = newBuffer(hint, buffers.get(in).dtype(), to, site(in));
        compute(hint, site(in), List.of(in), out, new ComputeOp.Reshape());
        return out;
    }

    public String slice(String hint, String in, List<Integer> starts, Shape window) {
        String out = newBuffer(hint, buffers.get(in).dtype(), window, site(in));
        compute(hint, site(in), List.of(in), out, new ComputeOp.Slice(starts));
        return out;
    }

    public String concat(String hint, int axis, List<String> ins) {
        if (ins.size() == 1) {
            return ins.getFirst();
        }
        Shape joined = OpRules.concatShape(ins.stream().map(this::shape).toList(), axis);
        String out = newBuffer(hint, buffers.get(ins.getFirst()).dtype(), joined == null ? shape(ins.getFirst()) : joined,
                site(ins.getFirst()));
        compute(hint, site(ins.getFirst()), ins, out, new ComputeOp.Concat(axis));
        return out;
    }

    /** Appends a Compute stage of {@code op} after holding it to the language's rules ({@link OpRules#check}). */
    private void compute(String hint, Site site, List<String> ins, String out, ComputeOp op) {
        List<Violation> broken = OpRules.check(op, ins.stream().map(buffers::get).toList(), buffers.get(out), buffers::get);
        if (!broken.isEmpty()) {
            throw new IllegalArgumentException("stage '" + hint + "' breaks the rule " + broken.getFirst());
        }
        stage(hint, site, ins, List.of(out), new StageKind.Compute(op));
    }

    /** A Scalar stage writing {@code expr} (over the one-element {@code ins}) to a new one-element i32 buffer. */
    public String scalar(String hint, Expr expr, String... ins) {
        return scalarAt(hint, site(ins[0]), expr, ins);
    }

    /** A Scalar stage on {@code site} (it may read no buffer, only parameters): {@link #scalar} with the core named. */
    public String scalarAt(String hint, Site site, Expr expr, String... ins) {
        String out = newBuffer(hint, DType.I32, Shape.of(1), site);
        stage(hint, site, List.of(ins), List.of(out), new StageKind.Scalar(new ScalarBody(List.of(expr))));
        return out;
    }

    /** An AllReduce of {@code partials} (one per chip) of logical tensor {@code logical}, one output per chip. */
    public List<String> allReduce(String hint, String logical, List<String> partials) {
        List<String> outs = new ArrayList<>();
        for (String p : partials) {
            outs.add(newBuffer(hint, buffers.get(p).dtype(), shape(p), site(p)));
        }
        stage(hint, site(partials.getFirst()), partials, outs,
                StageKind.AllReduce.of(org.stagecheck.spec.ir.ReducePool.SUM, logical, partials.size()));
        return outs;
    }

    public Program build() {
        return new Program(name, machine, params, List.copyOf(tensors.values()), List.copyOf(buffers.values()),
                groups, stages);
    }

    // ------------------------------------------------------------------ names

    /** {@code hint}, or {@code hint_<n>} when already taken: names stay readable and unique. */
    public String fresh(String hint) {
        int n = used.merge(hint, 1, Integer::sum);
        String candidate = n == 1 ? hint : hint + "_" + n;
        while (n > 1 && used.containsKey(candidate)) {
            n = used.merge(hint, 1, Integer::sum);
            candidate = hint + "_" + n;
        }
        used.putIfAbsent(candidate, 1);
        return candidate;
    }

    public static List<Offset> zeros(int rank) {
        Offset[] o = new Offset[rank];
        Arrays.fill(o, Offset.constant(0));
        return List.of(o);
    }
}
