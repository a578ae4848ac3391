package org.stagecheck.verifier.corpus;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Author;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.spec.cert.BufferRemap;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.cert.Obligation;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.InternalRef;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.json.ProgramCodec;

/**
 * Plants each {@link Plant} bug class into a split program written by the model author ("a mutation corpus ... hand-written and authored"). The author's programs are not built for
 * planting, so the planter finds its targets by structure, not by name:
 *
 * <ul>
 *   <li>the <b>reduce</b>: the first {@code AllReduce}; its inputs {@code p_c} are the chips'
 *       partials, its outputs {@code r_c} the reduced values, one per chip, in chip order;</li>
 *   <li>the <b>residual</b>: on each chip, the first later two-input {@code Generic} reading
 *       {@code r_c}; its other input {@code h_c} is the full residual stream (the author adds the
 *       residual after the reduce).</li>
 * </ul>
 *
 * A class whose target the program lacks is not applicable ({@link Optional#empty()}): a decode
 * layer has no kind-internal reference, for instance. Fresh names start with {@code mut}.
 */
public final class AuthoredMutants {

    /** The authored split of {@code cut} over {@code tp} chips, unmutated. */
    public static AuthoredCase valid(ModelSpec spec, Cut cut, int tp) {
        AuthorOptions options = AuthorOptions.split(tp);
        if (!(Author.author(spec, cut, options) instanceof AuthorOutcome.Authored a)) {
            throw new IllegalArgumentException(cut + " over " + tp + " chips was refused");
        }
        return new AuthoredCase(spec, cut, options, Plant.NONE, a.program(), a.certificate(), null, Map.of());
    }

    /** {@code plant} planted into {@code valid}, or empty when the program has no place for it. */
    public static Optional<AuthoredCase> plant(AuthoredCase valid, Plant plant) {
        Program p = valid.program();
        Certificate cert = valid.certificate();
        int a = firstAllReduce(p);
        Stage reduce = p.stages().get(a);
        StageKind.AllReduce ar = (StageKind.AllReduce) reduce.kind();
        List<String> partials = reduce.ins();
        List<String> reduced = reduce.outs();
        int n = partials.size();
        Map<String, BufferDecl> decls = p.buffersByName();
        return switch (plant) {
            case NONE -> Optional.of(valid);
            case DROP_SLICE -> withStages(valid, plant, p, replaced(p, a, new Stage(reduce.id(), reduce.site(), partials.subList(0, n - 1),
                    reduced, new StageKind.AllReduce(ar.pool(), ar.tensor(), new ComputeOp.Generic(ReducePool.SUM.fold(n - 1))))));
            case DUPLICATE_SLICE -> {
                List<ShardDecl> shards = new ArrayList<>(cert.shards());
                ShardDecl first = null;
                int last = -1;
                for (int i = 0; i < shards.size(); i++) {
                    if (shards.get(i).logical().equals(ar.tensor())) {
                        first = first == null ? shards.get(i) : first;
                        last = i;
                    }
                }
                ShardDecl l = shards.get(last);
                shards.set(last, new ShardDecl(l.tensor(), l.logical(), l.axis(), first.start(), first.end(), l.extent()));
                yield Optional.of(new AuthoredCase(valid.spec(), valid.cut(), valid.options(), plant, p,
                        new Certificate(shards, cert.remap(), cert.claims()), null, Map.of(l.tensor(), first.tensor())));
            }
            case BIAS_BEFORE_REDUCE, NONLINEAR_BEFORE_REDUCE -> {
                List<Stage> stages = new ArrayList<>(p.stages());
                List<BufferDecl> buffers = new ArrayList<>(p.buffers());
                List<String> early = new ArrayList<>();
                List<Stage> inserted = new ArrayList<>();
                for (int c = 0; c < n; c++) {
                    String q = "mut.q." + c;
                    BufferDecl pd = decls.get(partials.get(c));
                    buffers.add(new BufferDecl(q, pd.dtype(), pd.shape(), pd.site()));
                    early.add(q);
                    inserted.add(plant == Plant.BIAS_BEFORE_REDUCE
                            ? new Stage("mut_resid_early." + c, pd.site(), List.of(partials.get(c), residual(p, a, reduced.get(c))), List.of(q),
                                    new StageKind.Compute(new ComputeOp.Generic(Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)))))
                            : new Stage("mut_tanh." + c, pd.site(), List.of(partials.get(c)), List.of(q),
                                    new StageKind.Compute(new ComputeOp.Generic(Expr.apply(Fn.TANH, Expr.in(0))))));
                }
                stages.set(a, new Stage(reduce.id(), reduce.site(), early, reduced, ar));
                if (plant == Plant.BIAS_BEFORE_REDUCE) {
                    dropResidualAdds(p, a, reduced, stages);
                }
                stages.addAll(a, inserted);
                yield withStages(valid, plant, p.withBuffers(buffers), stages);
            }
            case MATMUL_BIAS_BEFORE_REDUCE -> {
                List<Stage> stages = new ArrayList<>(p.stages());
                for (int c = 0; c < n; c++) {
                    int k = producer(p, a, partials.get(c));
                    Stage mm = stages.get(k);
                    if (!(mm.kind() instanceof StageKind.Compute(ComputeOp.MatMul m)) || m.bias() != null) {
                        yield Optional.empty();
                    }
                    stages.set(k, new Stage(mm.id(), mm.site(), mm.ins(), mm.outs(), new StageKind.Compute(
                            new ComputeOp.MatMul(m.transposeA(), m.transposeB(), residual(p, a, reduced.get(c)), m.spill()))));
                }
                dropResidualAdds(p, a, reduced, stages);
                yield withStages(valid, plant, p, stages);
            }
            case STORE_PARTIAL -> {
                BufferDecl pd = decls.get(partials.getFirst());
                for (int k = a + 1; k < p.stages().size(); k++) {
                    Stage st = p.stages().get(k);
                    if (st.kind() instanceof StageKind.Store && st.site().equals(pd.site())) {
                        BufferDecl stored = decls.get(st.ins().getFirst());
                        if (stored.dtype() == pd.dtype() && stored.shape().equals(pd.shape())) {
                            yield withStages(valid, plant, p, replaced(p, k,
                                    new Stage(st.id(), st.site(), List.of(pd.name()), st.outs(), st.kind())));
                        }
                    }
                }
                yield Optional.empty();
            }
            case REDUCE_OF_REPLICATED -> {
                List<BufferDecl> buffers = new ArrayList<>(p.buffers());
                Map<String, String> again = new LinkedHashMap<>();
                for (int c = 0; c < n; c++) {
                    BufferDecl rd = decls.get(reduced.get(c));
                    buffers.add(new BufferDecl("mut.z." + c, rd.dtype(), rd.shape(), rd.site()));
                    again.put(reduced.get(c), "mut.z." + c);
                }
                List<Stage> stages = new ArrayList<>(p.stages().subList(0, a + 1));
                stages.add(new Stage("mut_allreduce_again", reduce.site(), reduced, List.copyOf(again.values()),
                        StageKind.AllReduce.of(ReducePool.SUM, ar.tensor(), n)));
                for (Stage st : p.stages().subList(a + 1, p.stages().size())) {
                    stages.add(new Stage(st.id(), st.site(), st.ins().stream().map(b -> again.getOrDefault(b, b)).toList(), st.outs(), st.kind()));
                }
                yield withStages(valid, plant, p.withBuffers(buffers), stages);
            }
            case WRONG_COMBINE -> withStages(valid, plant, p, replaced(p, a, new Stage(reduce.id(), reduce.site(), partials, reduced,
                    new StageKind.AllReduce(ar.pool(), ar.tensor(), new ComputeOp.Generic(
                            Expr.apply(Fn.SUB, ReducePool.SUM.fold(n - 1), Expr.in(n - 1)))))));
            case UNMAPPED_INTERNAL_REF -> unmappedInternalRef(valid, p, decls);
            case COLLIDING_MAP -> {
                // the chip-0 partial's name sent to the residual's: the matmul then overwrites the residual
                String from = partials.getFirst();
                String onto = residual(p, a, reduced.getFirst());
                BufferDecl f = decls.get(from);
                BufferDecl o = decls.get(onto);
                if (!f.site().equals(o.site()) || f.dtype() != o.dtype() || !f.shape().equals(o.shape())) {
                    yield Optional.empty();
                }
                yield Optional.of(remapped(valid, plant, p, Map.of(from, onto), null));
            }
            case RECV_BEFORE_LOAD, RECEIVER_LEFT_OUT -> {
                int r = -1;
                for (int k = 0; k < p.stages().size() && r < 0; k++) {
                    if (p.stages().get(k).kind() instanceof StageKind.Recv) {
                        r = k;
                    }
                }
                if (r < 0) {
                    yield Optional.empty();
                }
                List<Stage> stages = new ArrayList<>(p.stages());
                Stage recv = stages.remove(r);
                if (plant == Plant.RECV_BEFORE_LOAD) {
                    String group = ((StageKind.Recv) recv.kind()).group();
                    int load = r - 1;
                    while (!(stages.get(load).kind() instanceof StageKind.Load l && group.equals(l.multicast()))) {
                        load--;
                    }
                    stages.add(load, recv);
                }
                yield withStages(valid, plant, p, stages);
            }
        };
    }

    /**
     * A remap that swaps a kind-internal reference's buffer with another buffer of the same core
     * and dtype, then a pass that renamed everything but the reference inside the kind: it now
     * names the other buffer. Of all references and partners, the last best is taken: a partner
     * of the same shape already written when the stage runs (the stage then silently reads
     * somebody else's data, the case the brief warns of), else the same shape, else any. The last,
     * not the first: in a batch the first row's cache offset {@code pos_r0 + 0*ctx} equals
     * {@code pos_r0}, and a swap of those two is an equivalent mutant.
     */
    private static Optional<AuthoredCase> unmappedInternalRef(AuthoredCase valid, Program p, Map<String, BufferDecl> decls) {
        java.util.Set<String> written = new java.util.HashSet<>();
        int best = 0;
        int at = -1;
        String ref = null;
        String partner = null;
        for (int k = 0; k < p.stages().size(); k++) {
            Stage st = p.stages().get(k);
            for (InternalRef r : st.kind().internalRefs()) {
                BufferDecl rd = decls.get(r.buffer());
                for (BufferDecl d : p.buffers()) {
                    if (d.name().equals(rd.name()) || !d.site().equals(rd.site()) || d.dtype() != rd.dtype()) {
                        continue;
                    }
                    int score = 1 + (d.shape().equals(rd.shape()) ? 2 : 0) + (written.contains(d.name()) ? 1 : 0);
                    if (score >= best) {
                        best = score;
                        at = k;
                        ref = rd.name();
                        partner = d.name();
                    }
                }
            }
            written.addAll(st.outs());
        }
        if (at < 0) {
            return Optional.empty();
        }
        return Optional.of(unmappedAt(valid, at, ref, partner));
    }

    /**
     * The unmapped-reference plant with a chosen pair: the first stage whose kind names
     * {@code ref} keeps that name after a remap that swaps {@code ref} and {@code partner}.
     */
    public static AuthoredCase unmappedInternalRef(AuthoredCase valid, String ref, String partner) {
        List<Stage> stages = valid.program().stages();
        for (int k = 0; k < stages.size(); k++) {
            if (stages.get(k).kind().internalRefs().stream().anyMatch(r -> r.buffer().equals(ref))) {
                return unmappedAt(valid, k, ref, partner);
            }
        }
        throw new IllegalArgumentException("no stage of " + valid.name() + " names " + ref + " inside its kind");
    }

    private static AuthoredCase unmappedAt(AuthoredCase valid, int stage, String b, String o) {
        return remapped(valid, Plant.UNMAPPED_INTERNAL_REF, valid.program(), Map.of(b, o, o, b), child -> {
            List<Stage> stages = new ArrayList<>(child.stages());
            Stage cs = stages.get(stage);
            // the pass forgot the kind: its reference keeps the parent's name, now the partner's buffer
            stages.set(stage, new Stage(cs.id(), cs.site(), cs.ins(), cs.outs(), cs.kind().remapBuffers(n -> n.equals(o) ? b : n)));
            return child.withStages(stages);
        });
    }

    /** The child {@code parent.remapBuffers(f)} (then {@code damage}d) with a certificate whose map is {@code f} made total. */
    private static AuthoredCase remapped(AuthoredCase valid, Plant plant, Program parent, Map<String, String> f,
                                         java.util.function.UnaryOperator<Program> damage) {
        Map<String, String> total = new LinkedHashMap<>();
        for (BufferDecl d : parent.buffers()) {
            total.put(d.name(), f.getOrDefault(d.name(), d.name()));
        }
        Program child = parent.remapBuffers(total);
        if (damage != null) {
            child = damage.apply(child);
        }
        Certificate cert = valid.certificate();
        List<Obligation> claims = new ArrayList<>(cert.claims());
        claims.add(Obligation.BUFFER_REMAP);
        Certificate withMap = new Certificate(cert.shards(), new BufferRemap(new ProgramCodec().hash(parent), total), claims);
        return new AuthoredCase(valid.spec(), valid.cut(), valid.options(), plant, child, withMap, parent, Map.of());
    }

    /**
     * Every chip adds the residual twice after the first all-reduce ({@code r + h + h}): each chip
     * computes the same other program, which only the comparison with the unsplit cut rejects.
     */
    public static AuthoredCase residualTwice(AuthoredCase valid) {
        Program p = valid.program();
        int a = firstAllReduce(p);
        List<Stage> stages = new ArrayList<>(p.stages());
        for (String r : p.stages().get(a).outs()) {
            int k = residualAdd(p, a, r);
            Stage st = stages.get(k);
            Expr h = st.ins().get(0).equals(r) ? Expr.in(1) : Expr.in(0);
            stages.set(k, new Stage(st.id(), st.site(), st.ins(), st.outs(),
                    new StageKind.Compute(new ComputeOp.Generic(Expr.apply(Fn.ADD, Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)), h)))));
        }
        return new AuthoredCase(valid.spec(), valid.cut(), valid.options(), Plant.NONE, p.withStages(stages), valid.certificate(), null, Map.of());
    }

    /** The residual-add stage of each reduced output becomes a copy of the reduced value. */
    private static void dropResidualAdds(Program p, int a, List<String> reduced, List<Stage> stages) {
        for (String r : reduced) {
            int k = residualAdd(p, a, r);
            Stage st = stages.get(k);
            stages.set(k, new Stage(st.id(), st.site(), List.of(r), st.outs(), new StageKind.Compute(new ComputeOp.Generic(Expr.in(0)))));
        }
    }

    private static int firstAllReduce(Program p) {
        for (int k = 0; k < p.stages().size(); k++) {
            if (p.stages().get(k).kind() instanceof StageKind.AllReduce) {
                return k;
            }
        }
        throw new IllegalArgumentException(p.name() + " has no all-reduce");
    }

    /** The first stage after {@code a} that adds {@code r} to one other buffer. */
    private static int residualAdd(Program p, int a, String r) {
        for (int k = a + 1; k < p.stages().size(); k++) {
            Stage st = p.stages().get(k);
            if (st.ins().size() == 2 && st.ins().contains(r) && st.kind() instanceof StageKind.Compute(ComputeOp.Generic g)
                    && g.expr().equals(Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)))) {
                return k;
            }
        }
        throw new IllegalArgumentException("no residual add of " + r + " in " + p.name());
    }

    /** The residual stream that is added to {@code r} after the reduce. */
    private static String residual(Program p, int a, String r) {
        Stage st = p.stages().get(residualAdd(p, a, r));
        return st.ins().get(0).equals(r) ? st.ins().get(1) : st.ins().get(0);
    }

    /** The last stage before {@code a} that writes {@code buffer}. */
    private static int producer(Program p, int a, String buffer) {
        for (int k = a - 1; k >= 0; k--) {
            if (p.stages().get(k).outs().contains(buffer)) {
                return k;
            }
        }
        throw new IllegalArgumentException("nothing writes " + buffer + " before stage " + a);
    }

    private static List<Stage> replaced(Program p, int k, Stage with) {
        List<Stage> stages = new ArrayList<>(p.stages());
        stages.set(k, with);
        return stages;
    }

    private static Optional<AuthoredCase> withStages(AuthoredCase valid, Plant plant, Program p, List<Stage> stages) {
        return Optional.of(new AuthoredCase(valid.spec(), valid.cut(), valid.options(), plant, p.withStages(stages),
                valid.certificate(), null, Map.of()));
    }

    private AuthoredMutants() {}
}
