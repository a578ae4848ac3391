package org.stagecheck.passcheck;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.stagecheck.spec.cert.BufferRemap;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.spec.json.ProgramCodec;
import org.stagecheck.spec.validate.Validator;

/**
 * Compiler passes for the gallery: each correct, and each with the bug a compiler engineer would
 * plausibly write. Every pass leaves a rewrite out when its result would not validate, as a real
 * pass checks its own output.
 */
final class GalleryPasses {
    private GalleryPasses() {}

    private static boolean valid(Program p) {
        return new Validator().validate(p).isEmpty();
    }

    private static Set<String> reads(Stage s) {
        Set<String> out = new java.util.LinkedHashSet<>(s.ins());
        s.kind().internalRefs().forEach(r -> out.add(r.buffer()));
        return out;
    }

    private static Set<String> writes(Stage s) {
        Set<String> out = new java.util.LinkedHashSet<>(s.outs());
        if (s.kind() instanceof StageKind.Compute(ComputeOp.MatMul m) && m.spill() != null) {
            out.add(m.spill());
        }
        return out;
    }

    // ---------------------------------------------------------------- fusion of two Generics

    /**
     * Fuses a Generic A into the one Generic B that reads A's output (same site, same output shape,
     * A's inputs not rewritten in between): B's expression takes A's in place of that input. A
     * rounded its result to its output's dtype, so the correct fusion keeps that as a cast; the
     * buggy one ({@code keepCast = false}) drops it.
     */
    static Program fuseGenerics(Program p, boolean keepCast) {
        Program current = p;
        boolean fused = true;
        while (fused) {
            fused = false;
            for (int i = 0; i < current.stages().size() && !fused; i++) {
                Program next = fuseAt(current, i, keepCast);
                if (next != null) {
                    current = next;
                    fused = true;
                }
            }
        }
        return current;
    }

    private static Program fuseAt(Program p, int i, boolean keepCast) {
        List<Stage> stages = p.stages();
        Stage a = stages.get(i);
        if (!(a.kind() instanceof StageKind.Compute(ComputeOp.Generic ga)) || a.outs().size() != 1) {
            return null;
        }
        String out = a.outs().getFirst();
        int j = -1;
        for (int k = 0; k < stages.size(); k++) {
            if (k != i && reads(stages.get(k)).contains(out)) {
                if (j >= 0 || k < i) {
                    return null; // read twice, or read before A
                }
                j = k;
            }
        }
        if (j < 0) {
            return null;
        }
        Stage b = stages.get(j);
        Map<String, BufferDecl> buffers = p.buffersByName();
        if (!(b.kind() instanceof StageKind.Compute(ComputeOp.Generic gb)) || !b.site().equals(a.site())
                || !buffers.get(out).shape().equals(buffers.get(b.outs().getFirst()).shape())) {
            return null;
        }
        for (int k = i + 1; k < j; k++) {
            Set<String> w = writes(stages.get(k));
            if (w.contains(out) || a.ins().stream().anyMatch(w::contains)) {
                return null;
            }
        }
        List<String> ins = new ArrayList<>();
        Map<Integer, Integer> bIndex = new HashMap<>();
        for (int k = 0; k < b.ins().size(); k++) {
            if (!b.ins().get(k).equals(out)) {
                bIndex.put(k, indexOf(ins, b.ins().get(k)));
            }
        }
        Map<Integer, Integer> aIndex = new HashMap<>();
        for (int k = 0; k < a.ins().size(); k++) {
            aIndex.put(k, indexOf(ins, a.ins().get(k)));
        }
        Expr inner = renumber(ga.expr(), aIndex, null);
        Expr replacement = keepCast ? new Expr.Cast(buffers.get(out).dtype(), inner) : inner;
        Map<Integer, Expr> substitute = new HashMap<>();
        for (int k = 0; k < b.ins().size(); k++) {
            if (b.ins().get(k).equals(out)) {
                substitute.put(k, replacement);
            }
        }
        Expr fused = renumber(gb.expr(), bIndex, substitute);
        List<Stage> next = new ArrayList<>(stages);
        next.set(j, new Stage(b.id(), b.site(), ins, b.outs(), new StageKind.Compute(new ComputeOp.Generic(fused))));
        next.remove(i);
        Program candidate = p.withStages(next).withBuffers(p.buffers().stream().filter(d -> !d.name().equals(out)).toList());
        return valid(candidate) ? candidate : null;
    }

    private static int indexOf(List<String> ins, String buffer) {
        int at = ins.indexOf(buffer);
        if (at < 0) {
            ins.add(buffer);
            at = ins.size() - 1;
        }
        return at;
    }

    /** {@code e} with in(k) read as in(index(k)), or replaced by {@code substitute(k)}. */
    private static Expr renumber(Expr e, Map<Integer, Integer> index, Map<Integer, Expr> substitute) {
        return switch (e) {
            case Expr.In in -> substitute != null && substitute.containsKey(in.index()) ? substitute.get(in.index())
                    : new Expr.In(index.get(in.index()));
            case Expr.Apply ap -> new Expr.Apply(ap.fn(), ap.args().stream().map(x -> renumber(x, index, substitute)).toList());
            case Expr.Cast c -> new Expr.Cast(c.dtype(), renumber(c.arg(), index, substitute));
            case Expr.FloatConst f -> f;
            case Expr.IntConst ic -> ic;
            case Expr.ParamRef r -> r;
            case Expr.Index x -> x;
        };
    }

    // ---------------------------------------------------------------- a scheduler hoisting Stores

    /**
     * Moves each Store as early as its dependencies allow: after the last stage that writes a
     * buffer it reads, and (correctly) after the last stage that loads or stores its tensor. The
     * buggy scheduler ({@code respectTensors = false}) forgets the tensor, so a Store can overtake
     * the Load that was to read the tensor's old contents.
     */
    static Program hoistStores(Program p, boolean respectTensors) {
        List<Stage> stages = new ArrayList<>(p.stages());
        for (int j = 0; j < stages.size(); j++) {
            if (!(stages.get(j).kind() instanceof StageKind.Store st)) {
                continue;
            }
            Stage s = stages.get(j);
            Set<String> needs = reads(s);
            int to = j;
            while (to > 0) {
                Stage before = stages.get(to - 1);
                boolean blocks = writes(before).stream().anyMatch(needs::contains)
                        || (respectTensors && touches(before, st.tensor()));
                if (blocks) {
                    break;
                }
                to--;
            }
            if (to < j) {
                stages.remove(j);
                stages.add(to, s);
            }
        }
        return p.withStages(stages);
    }

    private static boolean touches(Stage s, String tensor) {
        return switch (s.kind()) {
            case StageKind.Load l -> l.tensor().equals(tensor);
            case StageKind.Store st -> st.tensor().equals(tensor);
            case StageKind.Recv r -> false;
            case StageKind.AllReduce a -> false;
            case StageKind.Compute c -> false;
            case StageKind.Scalar sc -> false;
        };
    }

    // ---------------------------------------------------------------- buffer renumbering

    /**
     * Renames buffer i to {@code b<i>}, ports and kind-internal references alike, and records the
     * map in the certificate. The buggy remap ({@code mapSpill = false}) leaves a MatMul's spill
     * pointing at the old name.
     */
    static org.stagecheck.passcheck.Pass.Result renumber(Program p, Certificate cert, boolean mapSpill) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < p.buffers().size(); i++) {
            map.put(p.buffers().get(i).name(), "b" + i);
        }
        Program child = p.remapBuffers(map);
        if (!mapSpill) {
            List<Stage> stages = new ArrayList<>();
            for (int i = 0; i < child.stages().size(); i++) {
                Stage s = child.stages().get(i);
                if (s.kind() instanceof StageKind.Compute(ComputeOp.MatMul m) && m.spill() != null
                        && p.stages().get(i).kind() instanceof StageKind.Compute(ComputeOp.MatMul old)) {
                    s = new Stage(s.id(), s.site(), s.ins(), s.outs(),
                            new StageKind.Compute(new ComputeOp.MatMul(m.transposeA(), m.transposeB(), m.bias(), old.spill())));
                }
                stages.add(s);
            }
            child = child.withStages(stages);
        }
        Certificate c = new Certificate(cert == null ? List.of() : cert.shards(), new BufferRemap(new ProgramCodec().hash(p), map),
                cert == null ? List.of() : cert.claims());
        return new org.stagecheck.passcheck.Pass.Result(child, c);
    }

    // ---------------------------------------------------------------- transposes

    /**
     * Composes a Transpose whose output only a second Transpose reads (same site) into one: the
     * result's axis i is the input's axis {@code p[q[i]]}. The buggy layout pass composes the
     * permutations the other way round, {@code q[p[i]]}, swapping axes.
     */
    static Program composeTransposes(Program p, boolean rightOrder) {
        List<Stage> stages = p.stages();
        for (int i = 0; i < stages.size(); i++) {
            if (!(stages.get(i).kind() instanceof StageKind.Compute(ComputeOp.Transpose t1))) {
                continue;
            }
            Stage first = stages.get(i);
            String mid = first.outs().getFirst();
            List<Integer> readers = new ArrayList<>();
            for (int k = 0; k < stages.size(); k++) {
                if (k != i && reads(stages.get(k)).contains(mid)) {
                    readers.add(k);
                }
            }
            if (readers.size() != 1 || readers.getFirst() < i) {
                continue;
            }
            int j = readers.getFirst();
            Stage second = stages.get(j);
            if (!(second.kind() instanceof StageKind.Compute(ComputeOp.Transpose t2)) || !second.site().equals(first.site())) {
                continue;
            }
            boolean inputRewritten = false;
            for (int k = i + 1; k < j; k++) {
                inputRewritten |= writes(stages.get(k)).contains(first.ins().getFirst());
            }
            if (inputRewritten) {
                continue;
            }
            List<Integer> perm = new ArrayList<>();
            for (int a = 0; a < t2.perm().size(); a++) {
                perm.add(rightOrder ? t1.perm().get(t2.perm().get(a)) : t2.perm().get(t1.perm().get(a)));
            }
            List<Stage> next = new ArrayList<>(stages);
            next.set(j, new Stage(second.id(), second.site(), first.ins(), second.outs(), new StageKind.Compute(new ComputeOp.Transpose(perm))));
            next.remove(i);
            // no self-check here: the composed transpose of a correct pass is always well formed
            return composeTransposes(p.withStages(next), rightOrder);
        }
        return p;
    }

    // ---------------------------------------------------------------- a bias before the all-reduce

    /**
     * Moves a bias add that follows a sum all-reduce ({@code add(reduced, bias)}) in front of it,
     * onto every member's partial, each chip adding its own copy of the bias (a Load on the
     * partial's site of a weight of the bias's shape and dtype, loaded before the all-reduce and
     * read by nothing else): the split a compiler might write to save a stage after the reduce.
     * The all-reduce then sums the bias once per chip: the verifier's finding on a partial plus a
     * full value, and outputs off by (chips - 1) times the bias.
     */
    static Program biasBeforeAllReduce(Program p) {
        List<Stage> stages = p.stages();
        Map<String, BufferDecl> buffers = p.buffersByName();
        for (int r = 0; r < stages.size(); r++) {
            if (!(stages.get(r).kind() instanceof StageKind.AllReduce)) {
                continue;
            }
            Stage reduce = stages.get(r);
            for (int g = r + 1; g < stages.size(); g++) {
                Stage add = stages.get(g);
                if (!(add.kind() instanceof StageKind.Compute(ComputeOp.Generic ge)) || add.ins().size() != 2
                        || !reduce.outs().contains(add.ins().getFirst())
                        || !ge.expr().equals(Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)))) {
                    continue;
                }
                BufferDecl bias = buffers.get(add.ins().get(1));
                List<String> copies = new ArrayList<>();
                for (String partial : reduce.ins()) {
                    copies.add(biasCopyOn(p, r, buffers.get(partial).site(), bias, add.ins().get(1)));
                }
                if (copies.contains(null)) {
                    continue;
                }
                List<Stage> next = new ArrayList<>(stages);
                next.set(g, new Stage(add.id(), add.site(), List.of(add.ins().getFirst()), add.outs(),
                        new StageKind.Compute(new ComputeOp.Generic(Expr.in(0)))));
                for (int j = reduce.ins().size() - 1; j >= 0; j--) {
                    String partial = reduce.ins().get(j);
                    next.add(r, new Stage(add.id() + ".early" + j, buffers.get(partial).site(), List.of(partial, copies.get(j)), List.of(partial),
                            new StageKind.Compute(new ComputeOp.Generic(Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1))))));
                }
                Program candidate = p.withStages(next);
                if (valid(candidate)) {
                    return candidate;
                }
            }
        }
        return p;
    }

    /**
     * The copy of {@code bias} on {@code site}: {@code biasName} itself when it lives there, else a
     * buffer of its shape and dtype there, loaded before stage {@code before} from a weight and
     * read by no stage; null when there is none.
     */
    private static String biasCopyOn(Program p, int before, Site site, BufferDecl bias, String biasName) {
        if (bias.site().equals(site)) {
            return biasName;
        }
        var tensors = p.tensorsByName();
        for (int k = 0; k < before; k++) {
            Stage s = p.stages().get(k);
            if (!(s.kind() instanceof StageKind.Load l) || s.outs().size() != 1 || tensors.get(l.tensor()).role() != TensorRole.WEIGHT) {
                continue;
            }
            BufferDecl b = p.buffersByName().get(s.outs().getFirst());
            if (b.site().equals(site) && b.shape().equals(bias.shape()) && b.dtype() == bias.dtype()
                    && p.stages().stream().noneMatch(x -> x.ins().contains(b.name()))) {
                return b.name();
            }
        }
        return null;
    }
}
