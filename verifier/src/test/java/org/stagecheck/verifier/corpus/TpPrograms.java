package org.stagecheck.verifier.corpus;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.stagecheck.spec.cert.BufferRemap;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.cert.Obligation;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Machine;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.ProgramBuilder;
import org.stagecheck.spec.ir.Rect;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.spec.json.ProgramCodec;

/**
 * The reference splitter and mutant planter of the verifier's tests: writes
 * {@link TpSpec}'s program unsplit on one chip, and split over {@code tp} chips with its
 * certificate, optionally with one {@link Plant}ed bug. Deterministic: names, order and shapes
 * depend on the spec and plant only.
 *
 * <p>Names: every declaration of chip c ends in {@code .c}; the unsplit program uses chip 0, and
 * its tensors carry the logical names of the split's certificate ({@code x}, {@code w1},
 * {@code b1}, {@code w2}, {@code b2}, {@code y}), so the checker can compare the two.
 */
public final class TpPrograms {

    /** The unsplit reference: one chip, W1 and W2 whole. */
    public static Program unsplit(TpSpec s) {
        ProgramBuilder b = new ProgramBuilder("tp-unsplit", new Machine(1, s.multicast() ? 2 : 1, 1));
        String reduced = head(b, s, 0, s.hidden(), Plant.NONE, true);
        Site core = core(s, 0);
        b.tensor("b2", TensorRole.WEIGHT, 0, 1, s.model()).tensor("y", TensorRole.OUTPUT, 0, s.rows(), s.model());
        b.buffer("b2.0", core, 1, s.model()).buffer("o.0", core, s.rows(), s.model());
        b.load("ld_b2.0", core, "b2", "b2.0", null, new long[] {0, 0}, 1, s.model());
        b.generic("add_b2.0", core, List.of(reduced, "b2.0"), "o.0", Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)));
        b.store("st_y.0", core, "o.0", "y", s.rows(), s.model());
        return b.build();
    }

    /** The split program over {@code s.tp()} chips with {@code plant} planted, its certificate and reference. */
    public static TpCase split(TpSpec s, Plant plant) {
        if (!plant.fits(s)) {
            throw new IllegalArgumentException(plant + " does not fit " + s);
        }
        Plant inProgram = switch (plant) {
            case UNMAPPED_INTERNAL_REF, COLLIDING_MAP -> Plant.NONE; // planted by the remap below
            default -> plant;
        };
        int fs = s.slice();
        ProgramBuilder b = new ProgramBuilder("tp" + s.tp() + "-split", new Machine(s.tp(), s.multicast() ? 2 : 1, 1));
        List<String> reduceIns = new ArrayList<>();
        for (int c = 0; c < s.tp(); c++) {
            reduceIns.add(head(b, s, c, fs, inProgram, false));
        }
        boolean biasBefore = inProgram == Plant.BIAS_BEFORE_REDUCE || inProgram == Plant.MATMUL_BIAS_BEFORE_REDUCE;
        List<String> arIns = new ArrayList<>(reduceIns);
        if (inProgram == Plant.DROP_SLICE) {
            arIns.removeLast();
        }
        List<String> outs = new ArrayList<>();
        for (int c = 0; c < s.tp(); c++) {
            b.buffer("r." + c, core(s, c), s.rows(), s.model());
            outs.add("r." + c);
        }
        Expr combine = ReducePool.SUM.fold(arIns.size());
        if (inProgram == Plant.WRONG_COMBINE) {
            Expr init = ReducePool.SUM.fold(arIns.size() - 1);
            combine = Expr.apply(Fn.SUB, init, Expr.in(arIns.size() - 1));
        }
        b.stage("allreduce_w2", core(s, 0), arIns, outs, new StageKind.AllReduce(ReducePool.SUM, "w2", new ComputeOp.Generic(combine)));
        List<String> finals = new ArrayList<>();
        for (int c = 0; c < s.tp(); c++) {
            Site core = core(s, c);
            b.tensor("y." + c, TensorRole.OUTPUT, c, s.rows(), s.model());
            if (biasBefore) {
                finals.add("r." + c); // the bias went in before the reduce
                continue;
            }
            b.tensor("b2." + c, TensorRole.WEIGHT, c, 1, s.model());
            b.buffer("b2." + c, core, 1, s.model()).buffer("o." + c, core, s.rows(), s.model());
            b.load("ld_b2." + c, core, "b2." + c, "b2." + c, null, new long[] {0, 0}, 1, s.model());
            b.generic("add_b2." + c, core, List.of("r." + c, "b2." + c), "o." + c, Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)));
            finals.add("o." + c);
        }
        if (inProgram == Plant.REDUCE_OF_REPLICATED) {
            List<String> z = new ArrayList<>();
            for (int c = 0; c < s.tp(); c++) {
                b.buffer("z." + c, core(s, c), s.rows(), s.model());
                z.add("z." + c);
            }
            b.stage("allreduce_again", core(s, 0), finals, z, StageKind.AllReduce.of(ReducePool.SUM, "w2", s.tp()));
            finals = z;
        }
        for (int c = 0; c < s.tp(); c++) {
            String stored = inProgram == Plant.STORE_PARTIAL ? reduceIns.get(c) : finals.get(c);
            b.store("st_y." + c, core(s, c), stored, "y." + c, s.rows(), s.model());
        }
        Program program = b.build();
        List<ShardDecl> shards = new ArrayList<>();
        for (int c = 0; c < s.tp(); c++) {
            int from = inProgram == Plant.DUPLICATE_SLICE && c == s.tp() - 1 ? 0 : c * fs;
            shards.add(new ShardDecl("w2." + c, "w2", 0, from, from + fs, s.hidden()));
            // the rest of what each chip holds: x, b2 and y whole, W1 and b1 by columns
            shards.add(new ShardDecl("x." + c, "x", 0, 0, s.rows(), s.rows()));
            shards.add(new ShardDecl("w1." + c, "w1", 1, (long) c * fs, (long) (c + 1) * fs, s.hidden()));
            if (s.bias1()) {
                shards.add(new ShardDecl("b1." + c, "b1", 1, (long) c * fs, (long) (c + 1) * fs, s.hidden()));
            }
            shards.add(new ShardDecl("b2." + c, "b2", 0, 0, 1, 1));
            shards.add(new ShardDecl("y." + c, "y", 0, 0, s.rows(), s.rows()));
        }
        List<Obligation> claims = List.of(Obligation.UNREDUCED_SHARD, Obligation.MULTICAST);
        Certificate cert = new Certificate(shards, null, claims);
        return switch (plant) {
            case UNMAPPED_INTERNAL_REF -> unmappedBias(s, plant, program, cert);
            case COLLIDING_MAP -> remapped(s, plant, program, cert, Map.of("w2.0", "w1.0"));
            default -> new TpCase(s, plant, program, cert, null, unsplit(s));
        };
    }

    /** The valid split renamed by a bijection (every buffer to {@code v<k>}), with the parent. */
    public static TpCase renamed(TpSpec s) {
        Program parent = split(s, Plant.NONE).program();
        Map<String, String> swaps = new LinkedHashMap<>();
        for (int k = 0; k < parent.buffers().size(); k++) {
            swaps.put(parent.buffers().get(k).name(), "v" + k);
        }
        return remapped(s, Plant.NONE, parent, split(s, Plant.NONE).certificate(), swaps);
    }

    private static TpCase unmappedBias(TpSpec s, Plant plant, Program parent, Certificate cert) {
        TpCase ok = remapped(s, plant, parent, cert, Map.of("b1.0", "h.0", "h.0", "b1.0"));
        List<Stage> stages = new ArrayList<>(ok.program().stages());
        for (int i = 0; i < stages.size(); i++) {
            Stage st = stages.get(i);
            if (st.id().equals("mm1.0") && st.kind() instanceof StageKind.Compute(ComputeOp.MatMul m)) {
                // the pass renamed the ports and declarations but left the op's bias as it was
                stages.set(i, new Stage(st.id(), st.site(), st.ins(), st.outs(),
                        new StageKind.Compute(new ComputeOp.MatMul(m.transposeA(), m.transposeB(), "b1.0", m.spill()))));
            }
        }
        return new TpCase(s, plant, ok.program().withStages(stages), ok.certificate(), parent, ok.unsplit());
    }

    /** The child {@code parent.remapBuffers(f)} with a certificate whose map is {@code f} made total. */
    private static TpCase remapped(TpSpec s, Plant plant, Program parent, Certificate cert, Map<String, String> f) {
        Map<String, String> total = new LinkedHashMap<>();
        for (BufferDecl d : parent.buffers()) {
            total.put(d.name(), f.getOrDefault(d.name(), d.name()));
        }
        Program child = parent.remapBuffers(total);
        BufferRemap remap = new BufferRemap(new ProgramCodec().hash(parent), total);
        List<Obligation> claims = new ArrayList<>(cert.claims());
        claims.add(Obligation.BUFFER_REMAP);
        return new TpCase(s, plant, child, new Certificate(cert.shards(), remap, claims), parent, unsplit(s));
    }

    private static Site core(TpSpec s, int chip) {
        return new Site(chip, s.multicast() ? 1 : 0, 0);
    }

    /**
     * Chip {@code c}'s part up to the value to reduce: loads first (x by multicast when asked),
     * then {@code act(x @ W1 (+ b1)) @ W2-slice}, in two spilled halves when {@code streamK}.
     * Returns the buffer holding the partial (or, unsplit, the full product).
     */
    private static String head(ProgramBuilder b, TpSpec s, int c, int fs, Plant plant, boolean unsplit) {
        String x = "." + c;
        String t = unsplit ? "" : x; // the unsplit program's tensors are the logical tensors, named as the certificate names them
        Site core = core(s, c);
        int m = s.rows();
        int d = s.model();
        b.tensor("x" + t, TensorRole.INPUT, c, m, d).tensor("w1" + t, TensorRole.WEIGHT, c, d, fs).tensor("w2" + t, TensorRole.WEIGHT, c, fs, d);
        b.buffer("x" + x, core, m, d).buffer("w1" + x, core, d, fs).buffer("h" + x, core, m, fs).buffer("a" + x, core, m, fs).buffer("p" + x, core, m, d);
        if (s.multicast()) {
            Site loader = new Site(c, 0, 0);
            b.group("g" + x, c, new Rect(0, 0, 2, 1), loader).buffer("xs" + x, loader, m, d);
            boolean early = plant == Plant.RECV_BEFORE_LOAD && c == 0;
            boolean skip = plant == Plant.RECEIVER_LEFT_OUT && c == 0;
            if (early) {
                b.stage("recv_x" + x, core, List.of(), List.of("x" + x), new StageKind.Recv("g" + x));
            }
            b.load("ld_x" + x, loader, "x" + t, "xs" + x, "g" + x, new long[] {0, 0}, m, d);
            if (!early && !skip) {
                b.stage("recv_x" + x, core, List.of(), List.of("x" + x), new StageKind.Recv("g" + x));
            }
        } else {
            b.load("ld_x" + x, core, "x" + t, "x" + x, null, new long[] {0, 0}, m, d);
        }
        b.load("ld_w1" + x, core, "w1" + t, "w1" + x, null, new long[] {0, 0}, d, fs);
        if (s.bias1()) {
            b.tensor("b1" + t, TensorRole.WEIGHT, c, 1, fs).buffer("b1" + x, core, 1, fs);
            b.load("ld_b1" + x, core, "b1" + t, "b1" + x, null, new long[] {0, 0}, 1, fs);
        }
        if (s.streamK()) {
            int half = fs / 2;
            b.buffer("w2a" + x, core, half, d).buffer("w2b" + x, core, half, d);
            b.load("ld_w2a" + x, core, "w2" + t, "w2a" + x, null, new long[] {0, 0}, half, d);
            b.load("ld_w2b" + x, core, "w2" + t, "w2b" + x, null, new long[] {half, 0}, half, d);
        } else {
            b.buffer("w2" + x, core, fs, d);
            b.load("ld_w2" + x, core, "w2" + t, "w2" + x, null, new long[] {0, 0}, fs, d);
        }
        boolean matmulBias = plant == Plant.MATMUL_BIAS_BEFORE_REDUCE;
        if (matmulBias || plant == Plant.BIAS_BEFORE_REDUCE) {
            b.tensor("b2" + t, TensorRole.WEIGHT, c, 1, d).buffer("b2" + x, core, 1, d);
            b.load("ld_b2" + x, core, "b2" + t, "b2" + x, null, new long[] {0, 0}, 1, d);
        }
        b.matmul("mm1" + x, core, "x" + x, "w1" + x, "h" + x, s.bias1() ? "b1" + x : null, null);
        b.generic("act" + x, core, List.of("h" + x), "a" + x, s.act().expr());
        String bias2 = matmulBias ? "b2" + x : null;
        if (s.streamK()) {
            int half = fs / 2;
            b.buffer("aa" + x, core, m, half).buffer("ab" + x, core, m, half)
                    .buffer("acc" + x, DType.F32, core, m, d).buffer("pa" + x, core, m, d);
            b.stage("sl_a0" + x, core, List.of("a" + x), List.of("aa" + x), new StageKind.Compute(new ComputeOp.Slice(List.of(0, 0))));
            b.stage("sl_a1" + x, core, List.of("a" + x), List.of("ab" + x), new StageKind.Compute(new ComputeOp.Slice(List.of(0, half))));
            b.matmul("mm2a" + x, core, "aa" + x, "w2a" + x, "pa" + x, null, "acc" + x);
            b.matmul("mm2b" + x, core, "ab" + x, "w2b" + x, "p" + x, bias2, "acc" + x);
        } else {
            b.matmul("mm2" + x, core, "a" + x, "w2" + x, "p" + x, bias2, null);
        }
        if (plant == Plant.BIAS_BEFORE_REDUCE) {
            b.buffer("q" + x, core, m, d);
            b.generic("add_b2" + x, core, List.of("p" + x, "b2" + x), "q" + x, Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)));
            return "q" + x;
        }
        if (plant == Plant.NONLINEAR_BEFORE_REDUCE) {
            b.buffer("q" + x, core, m, d);
            b.generic("tanh_p" + x, core, List.of("p" + x), "q" + x, Expr.apply(Fn.TANH, Expr.in(0)));
            return "q" + x;
        }
        return "p" + x;
    }

    private TpPrograms() {}
}
