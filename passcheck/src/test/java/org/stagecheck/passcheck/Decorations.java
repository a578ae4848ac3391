package org.stagecheck.passcheck;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.tensor.RandomBindings;
import org.stagecheck.tensor.Tensor;

/**
 * Generators of the user's own, as a pass's tests write them: random programs decorated with the
 * pattern the pass rewrites (a bias added after each all-reduce; a chain of two rank-3
 * transposes), so that every try exercises it.
 */
final class Decorations {
    private Decorations() {}

    private static List<Offset> zeros(int rank) {
        List<Offset> o = new ArrayList<>();
        for (int i = 0; i < rank; i++) {
            o.add(Offset.constant(0));
        }
        return o;
    }

    /**
     * A bias after each all-reduce, as a split compiler writes it: every member chip loads its own
     * copy of the bias (one tensor per chip, bound to the same values), before the all-reduce;
     * after it, the first member adds its copy to the reduced value and stores the sum to a new
     * output. The other copies are loaded and not used: what a pass that adds the bias before the
     * all-reduce on every chip will reach for. The certificate declares each copy the whole of one
     * logical bias.
     */
    static Generated biasAfterAllReduce(Generated g, long seed) {
        Program p = g.program();
        Map<String, BufferDecl> buffers = p.buffersByName();
        List<TensorDecl> tensors = new ArrayList<>(p.tensors());
        List<BufferDecl> decls = new ArrayList<>(p.buffers());
        List<Stage> stages = new ArrayList<>();
        Map<String, Tensor> bound = new LinkedHashMap<>(g.bound());
        List<ShardDecl> shards = new ArrayList<>(g.certificate() == null ? List.of() : g.certificate().shards());
        int k = 0;
        for (Stage s : p.stages()) {
            if (!(s.kind() instanceof StageKind.AllReduce)) {
                stages.add(s);
                continue;
            }
            BufferDecl out = buffers.get(s.outs().getFirst());
            String n = "bias" + k++;
            Tensor values = RandomBindings.of(new TensorDecl(n, DType.F32, out.shape(), out.site().chip(), TensorRole.WEIGHT), seed);
            for (int j = 0; j < s.ins().size(); j++) {
                Site site = buffers.get(s.ins().get(j)).site();
                TensorDecl copy = new TensorDecl(n + ".c" + j, DType.F32, out.shape(), site.chip(), TensorRole.WEIGHT);
                tensors.add(copy);
                bound.put(copy.name(), values);
                // the certificate says what the copies are: each the whole of one logical bias
                shards.add(new ShardDecl(copy.name(), n, 0, 0, out.shape().dim(0), out.shape().dim(0)));
                decls.add(new BufferDecl(n + ".b" + j, DType.F32, out.shape(), site));
                stages.add(new Stage(n + ".load" + j, site, List.of(), List.of(n + ".b" + j),
                        new StageKind.Load(copy.name(), new AccessPattern.Block(zeros(out.shape().rank()), out.shape()), 1, null)));
            }
            Site site = out.site();
            decls.add(new BufferDecl(n + ".sum", DType.F32, out.shape(), site));
            tensors.add(new TensorDecl(n + ".out", DType.F32, out.shape(), site.chip(), TensorRole.OUTPUT));
            stages.add(s);
            stages.add(new Stage(n + ".add", site, List.of(out.name(), n + ".b0"), List.of(n + ".sum"),
                    new StageKind.Compute(new ComputeOp.Generic(Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1))))));
            stages.add(new Stage(n + ".store", site, List.of(n + ".sum"), List.of(),
                    new StageKind.Store(n + ".out", new AccessPattern.Block(zeros(out.shape().rank()), out.shape()), 1, 1)));
        }
        Program decorated = new Program(p.name(), p.machine(), p.params(), tensors, decls, p.groups(), stages);
        Certificate c = g.certificate() == null ? new Certificate(shards, null, List.of())
                : new Certificate(shards, g.certificate().remap(), g.certificate().claims());
        return new Generated(g.origin() + " + a bias after each all-reduce", decorated, c, bound, g.params());
    }

    /** After each rank-2 transpose x -> y: x reshaped to [a, b, 1], two transposes by random non-identity perms, stored. */
    static Generated transposeChains(Generated g, RandomGenerator r) {
        Program p = g.program();
        Map<String, BufferDecl> buffers = p.buffersByName();
        List<TensorDecl> tensors = new ArrayList<>(p.tensors());
        List<BufferDecl> decls = new ArrayList<>(p.buffers());
        List<Stage> stages = new ArrayList<>();
        List<List<Integer>> perms = List.of(List.of(0, 2, 1), List.of(1, 0, 2), List.of(1, 2, 0), List.of(2, 0, 1), List.of(2, 1, 0));
        int k = 0;
        for (Stage s : p.stages()) {
            stages.add(s);
            if (!(s.kind() instanceof StageKind.Compute(ComputeOp.Transpose t)) || t.perm().size() != 2) {
                continue;
            }
            BufferDecl x = buffers.get(s.ins().getFirst());
            Site site = x.site();
            String n = "chain" + k++;
            int[] d3 = {x.shape().dim(0), x.shape().dim(1), 1};
            List<Integer> p1 = perms.get(r.nextInt(perms.size()));
            List<Integer> p2 = perms.get(r.nextInt(perms.size()));
            int[] d4 = permute(d3, p1);
            int[] d5 = permute(d4, p2);
            decls.add(new BufferDecl(n + ".r", x.dtype(), Shape.of(d3), site));
            decls.add(new BufferDecl(n + ".t1", x.dtype(), Shape.of(d4), site));
            decls.add(new BufferDecl(n + ".t2", x.dtype(), Shape.of(d5), site));
            tensors.add(new TensorDecl(n + ".out", x.dtype(), Shape.of(d5), site.chip(), TensorRole.OUTPUT));
            stages.add(new Stage(n + ".reshape", site, List.of(x.name()), List.of(n + ".r"), new StageKind.Compute(new ComputeOp.Reshape())));
            stages.add(new Stage(n + ".t1", site, List.of(n + ".r"), List.of(n + ".t1"), new StageKind.Compute(new ComputeOp.Transpose(p1))));
            stages.add(new Stage(n + ".t2", site, List.of(n + ".t1"), List.of(n + ".t2"), new StageKind.Compute(new ComputeOp.Transpose(p2))));
            stages.add(new Stage(n + ".store", site, List.of(n + ".t2"), List.of(),
                    new StageKind.Store(n + ".out", new AccessPattern.Block(zeros(3), Shape.of(d5)), 1, 1)));
        }
        Program decorated = new Program(p.name(), p.machine(), p.params(), tensors, decls, p.groups(), stages);
        return new Generated(g.origin() + " + transpose chains", decorated, g.certificate(), g.bound(), g.params());
    }

    private static int[] permute(int[] dims, List<Integer> perm) {
        int[] out = new int[dims.length];
        for (int a = 0; a < dims.length; a++) {
            out[a] = dims[perm.get(a)];
        }
        return out;
    }

    /**
     * After each Generic with a floating output {@code g}: {@code h = mul(g, 1.1)} into a bf16
     * buffer, {@code k = add(h, 0.5)} in f32, k stored to a new output. A fusion of the two must
     * keep h's rounding to bf16.
     */
    static Generated narrowGenericChains(Generated g) {
        Program p = g.program();
        Map<String, BufferDecl> buffers = p.buffersByName();
        List<TensorDecl> tensors = new ArrayList<>(p.tensors());
        List<BufferDecl> decls = new ArrayList<>(p.buffers());
        List<Stage> stages = new ArrayList<>();
        int k = 0;
        for (Stage s : p.stages()) {
            stages.add(s);
            if (!(s.kind() instanceof StageKind.Compute(ComputeOp.Generic ge)) || s.outs().size() != 1
                    || !buffers.get(s.outs().getFirst()).dtype().isFloating()) {
                continue;
            }
            BufferDecl out = buffers.get(s.outs().getFirst());
            String n = "narrow" + k++;
            decls.add(new BufferDecl(n + ".h", DType.BF16, out.shape(), out.site()));
            decls.add(new BufferDecl(n + ".k", DType.F32, out.shape(), out.site()));
            tensors.add(new TensorDecl(n + ".out", DType.F32, out.shape(), out.site().chip(), TensorRole.OUTPUT));
            stages.add(new Stage(n + ".mul", out.site(), List.of(out.name()), List.of(n + ".h"),
                    new StageKind.Compute(new ComputeOp.Generic(Expr.apply(Fn.MUL, Expr.in(0), Expr.f(1.1))))));
            stages.add(new Stage(n + ".add", out.site(), List.of(n + ".h"), List.of(n + ".k"),
                    new StageKind.Compute(new ComputeOp.Generic(Expr.apply(Fn.ADD, Expr.in(0), Expr.f(0.5))))));
            stages.add(new Stage(n + ".store", out.site(), List.of(n + ".k"), List.of(),
                    new StageKind.Store(n + ".out", new AccessPattern.Block(zeros(out.shape().rank()), out.shape()), 1, 1)));
        }
        Program decorated = new Program(p.name(), p.machine(), p.params(), tensors, decls, p.groups(), stages);
        return new Generated(g.origin() + " + bf16 Generic chains", decorated, g.certificate(), g.bound(), g.params());
    }

    /**
     * After each whole-block Store of buffer b into tensor T: {@code x = neg(b)}; a Load of T into
     * y (b's values); x stored into T; {@code z = add(y, y)} stored to a new output. A scheduler
     * may not move the second Store above that Load.
     */
    static Generated loadBeforeRestore(Generated g) {
        Program p = g.program();
        Map<String, BufferDecl> buffers = p.buffersByName();
        List<TensorDecl> tensors = new ArrayList<>(p.tensors());
        List<BufferDecl> decls = new ArrayList<>(p.buffers());
        List<Stage> stages = new ArrayList<>();
        int k = 0;
        for (Stage s : p.stages()) {
            stages.add(s);
            if (!(s.kind() instanceof StageKind.Store st) || !(st.pattern() instanceof AccessPattern.Block block)
                    || block.origin().stream().anyMatch(o -> !o.terms().isEmpty())) {
                continue;
            }
            BufferDecl b = buffers.get(s.ins().getFirst());
            if (!b.shape().equals(block.block())) {
                continue;
            }
            String n = "reload" + k++;
            Site site = s.site();
            decls.add(new BufferDecl(n + ".x", b.dtype(), b.shape(), site));
            decls.add(new BufferDecl(n + ".y", b.dtype(), b.shape(), site));
            decls.add(new BufferDecl(n + ".z", b.dtype(), b.shape(), site));
            tensors.add(new TensorDecl(n + ".out", b.dtype(), b.shape(), site.chip(), TensorRole.OUTPUT));
            stages.add(new Stage(n + ".neg", site, List.of(b.name()), List.of(n + ".x"),
                    new StageKind.Compute(new ComputeOp.Generic(Expr.apply(Fn.NEG, Expr.in(0))))));
            stages.add(new Stage(n + ".load", site, List.of(), List.of(n + ".y"), new StageKind.Load(st.tensor(), block, 1, null)));
            stages.add(new Stage(n + ".restore", site, List.of(n + ".x"), List.of(), st));
            stages.add(new Stage(n + ".add", site, List.of(n + ".y"), List.of(n + ".z"),
                    new StageKind.Compute(new ComputeOp.Generic(Expr.apply(Fn.ADD, Expr.in(0), Expr.in(0))))));
            stages.add(new Stage(n + ".store", site, List.of(n + ".z"), List.of(),
                    new StageKind.Store(n + ".out", new AccessPattern.Block(zeros(b.shape().rank()), b.shape()), 1, 1)));
        }
        Program decorated = new Program(p.name(), p.machine(), p.params(), tensors, decls, p.groups(), stages);
        return new Generated(g.origin() + " + a reload before each re-store", decorated, g.certificate(), g.bound(), g.params());
    }
}
