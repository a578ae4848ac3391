package org.stagecheck.verifier.fuzz;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.verifier.corpus.TpSpec;
import org.stagecheck.verifier.shard.SplitEdits;

/** Applies a {@link Mutation} to a valid split of the reference splitter, at a random chip. */
public final class Mutator {
    private final SplitEdits e;
    private final TpSpec s;
    private final SplittableRandom r;

    public Mutator(SplitEdits e, SplittableRandom r) {
        this.e = e;
        this.s = e.spec();
        this.r = r;
    }

    /** Whether {@code m} applies to this split. */
    public boolean fits(Mutation m) {
        return switch (m) {
            case HIERARCHICAL -> s.tp() == 4;
            case TILE_COLUMNS -> !s.streamK() && s.model() % 2 == 0;
            case NONE, LOAD_SHIFT, COMMUTE_COMBINE, SCALE_PARTIAL, SCALE_BY_ONE, NONLINEAR_PARTIAL, ADD_ZERO, BIAS_ON_ONE_CHIP, BIAS_TWICE,
                 DROP_INPUT, REWIRE_INPUT, CERT_SLICE, SCRATCH_SAME, SCRATCH_OTHER -> true;
        };
    }

    public void apply(Mutation m) {
        int c = r.nextInt(s.tp());
        switch (m) {
            case NONE -> { }
            case LOAD_SHIFT -> loadShift(c);
            case COMMUTE_COMBINE -> combine(reversedFold(s.tp()));
            case SCALE_PARTIAL -> onPartial(c, Expr.apply(Fn.MUL, Expr.in(0), Expr.f(2.0)));
            case SCALE_BY_ONE -> onPartial(c, Expr.apply(Fn.MUL, Expr.in(0), Expr.f(1.0)));
            case NONLINEAR_PARTIAL -> onPartial(c, Expr.apply(Fn.TANH, Expr.in(0)));
            case ADD_ZERO -> onPartial(c, Expr.apply(Fn.ADD, Expr.in(0), Expr.f(0.0)));
            case BIAS_ON_ONE_CHIP -> biasBefore(c, true);
            case BIAS_TWICE -> biasBefore(c, false);
            case DROP_INPUT -> dropInput(c);
            case REWIRE_INPUT -> e.rewire("allreduce_w2", "p." + c, "x." + c);
            case CERT_SLICE -> certSlice(c);
            case HIERARCHICAL -> hierarchical();
            case SCRATCH_SAME -> scratch(c, false);
            case SCRATCH_OTHER -> scratch(c, true);
            case TILE_COLUMNS -> tileColumns(c);
        }
    }

    private String partialProducer(int c) {
        return s.streamK() ? "mm2b." + c : "mm2." + c;
    }

    private void loadShift(int c) {
        List<String> ids = new ArrayList<>(List.of("ld_w1." + c, s.streamK() ? "ld_w2a." + c : "ld_w2." + c));
        if (!s.multicast()) {
            ids.add("ld_x." + c);
        }
        String id = ids.get(r.nextInt(ids.size()));
        List<Stage> st = e.stages();
        for (int i = 0; i < st.size(); i++) {
            if (st.get(i).id().equals(id) && st.get(i).kind() instanceof StageKind.Load l && l.pattern() instanceof AccessPattern.Block b) {
                int axis = r.nextInt(2);
                List<Offset> o = new ArrayList<>(b.origin());
                long moved = o.get(axis).constant() + 1;
                o.set(axis, Offset.constant(moved));
                e.replace(id, new StageKind.Load(l.tensor(), new AccessPattern.Block(o, b.block()), l.numBlocks(), l.multicast()));
                return;
            }
        }
    }

    private static Expr reversedFold(int n) {
        Expr acc = Expr.in(n - 1);
        for (int i = n - 2; i >= 0; i--) {
            acc = Expr.apply(Fn.ADD, acc, Expr.in(i));
        }
        return acc;
    }

    private void combine(Expr e2) {
        e.replace("allreduce_w2", new StageKind.AllReduce(ReducePool.SUM, "w2", new ComputeOp.Generic(e2)));
    }

    private void onPartial(int c, Expr expr) {
        e.bufferAt("q." + c, c, s.rows(), s.model());
        e.after(partialProducer(c), new Stage("edit." + c, e.computeCore(c), List.of("p." + c), List.of("q." + c),
                new StageKind.Compute(new ComputeOp.Generic(expr))));
        e.rewire("allreduce_w2", "p." + c, "q." + c);
    }

    private void biasBefore(int c, boolean moveIt) {
        e.bufferAt("b2e." + c, c, 1, s.model()).bufferAt("q." + c, c, s.rows(), s.model());
        AccessPattern.Block row = new AccessPattern.Block(List.of(Offset.constant(0), Offset.constant(0)), Shape.of(1, s.model()));
        e.after(partialProducer(c), new Stage("ld_b2e." + c, e.computeCore(c), List.of(), List.of("b2e." + c), new StageKind.Load("b2." + c, row, 1, null)));
        e.after("ld_b2e." + c, new Stage("edit." + c, e.computeCore(c), List.of("p." + c, "b2e." + c), List.of("q." + c),
                new StageKind.Compute(new ComputeOp.Generic(Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1))))));
        e.rewire("allreduce_w2", "p." + c, "q." + c);
        if (moveIt) {
            for (int k = 0; k < s.tp(); k++) {
                e.replace("add_b2." + k, new StageKind.Compute(new ComputeOp.Generic(Expr.in(0))));
            }
        }
    }

    private void dropInput(int c) {
        List<Stage> st = e.stages();
        for (int i = 0; i < st.size(); i++) {
            Stage a = st.get(i);
            if (a.id().equals("allreduce_w2")) {
                List<String> ins = new ArrayList<>(a.ins());
                ins.remove("p." + c);
                st.set(i, new Stage(a.id(), ins.isEmpty() ? a.site() : e.computeCore(Integer.parseInt(ins.getFirst().substring(2))), ins, a.outs(),
                        StageKind.AllReduce.of(ReducePool.SUM, "w2", ins.size())));
            }
        }
    }

    private void certSlice(int c) {
        int other = (c + 1) % s.tp();
        List<ShardDecl> d = e.shards();
        for (int i = 0; i < d.size(); i++) {
            if (d.get(i).tensor().equals("w2." + c)) {
                ShardDecl old = d.get(i);
                long len = old.end() - old.start();
                d.set(i, new ShardDecl(old.tensor(), old.logical(), old.axis(), other * len, other * len + len, old.extent()));
            }
        }
    }

    private void hierarchical() {
        for (int k = 0; k < 4; k++) {
            e.bufferAt("hr." + k, k, s.rows(), s.model());
        }
        List<Stage> st = e.stages();
        for (int i = 0; i < st.size(); i++) {
            if (st.get(i).id().equals("allreduce_w2")) {
                StageKind.AllReduce two = StageKind.AllReduce.of(ReducePool.SUM, "w2", 2);
                st.set(i, new Stage("allreduce_w2", e.computeCore(0), List.of("p.0", "p.1"), List.of("hr.0", "hr.1"), two));
                st.add(i + 1, new Stage("allreduce_w2b", e.computeCore(2), List.of("p.2", "p.3"), List.of("hr.2", "hr.3"), two));
                st.add(i + 2, new Stage("allreduce_w2c", e.computeCore(0), List.of("hr.0", "hr.2"), List.of("r.0", "r.2"), two));
                st.add(i + 3, new Stage("allreduce_w2d", e.computeCore(1), List.of("hr.1", "hr.3"), List.of("r.1", "r.3"), two));
                return;
            }
        }
    }

    private void scratch(int c, boolean elsewhere) {
        int rows = s.rows();
        e.tensor(new TensorDecl("s." + c, DType.F32, Shape.of(2 * rows, s.model()), c, TensorRole.SCRATCH));
        e.bufferAt("q." + c, c, rows, s.model());
        long storeAt = r.nextBoolean() ? 0 : rows;
        long loadAt = elsewhere ? rows - storeAt : storeAt;
        Shape block = Shape.of(rows, s.model());
        e.after(partialProducer(c), new Stage("st_s." + c, e.computeCore(c), List.of("p." + c), List.of(),
                new StageKind.Store("s." + c, new AccessPattern.Block(List.of(Offset.constant(storeAt), Offset.constant(0)), block), rows, s.model())));
        e.after("st_s." + c, new Stage("ld_s." + c, e.computeCore(c), List.of(), List.of("q." + c),
                new StageKind.Load("s." + c, new AccessPattern.Block(List.of(Offset.constant(loadAt), Offset.constant(0)), block), 1, null)));
        e.rewire("allreduce_w2", "p." + c, "q." + c);
    }

    private void tileColumns(int c) {
        int half = s.model() / 2;
        int fs = s.slice();
        e.bufferAt("w2l." + c, c, fs, half).bufferAt("w2r." + c, c, fs, half).bufferAt("pl." + c, c, s.rows(), half)
                .bufferAt("pr." + c, c, s.rows(), half).bufferAt("q." + c, c, s.rows(), s.model());
        String at = "mm2." + c;
        e.after(at, new Stage("ld_w2l." + c, e.computeCore(c), List.of(), List.of("w2l." + c),
                new StageKind.Load("w2." + c, new AccessPattern.Block(List.of(Offset.constant(0), Offset.constant(0)), Shape.of(fs, half)), 1, null)));
        e.after("ld_w2l." + c, new Stage("ld_w2r." + c, e.computeCore(c), List.of(), List.of("w2r." + c),
                new StageKind.Load("w2." + c, new AccessPattern.Block(List.of(Offset.constant(0), Offset.constant(half)), Shape.of(fs, half)), 1, null)));
        e.after("ld_w2r." + c, new Stage("mml." + c, e.computeCore(c), List.of("a." + c, "w2l." + c), List.of("pl." + c),
                new StageKind.Compute(ComputeOp.MatMul.plain())));
        e.after("mml." + c, new Stage("mmr." + c, e.computeCore(c), List.of("a." + c, "w2r." + c), List.of("pr." + c),
                new StageKind.Compute(ComputeOp.MatMul.plain())));
        e.after("mmr." + c, new Stage("cat." + c, e.computeCore(c), List.of("pl." + c, "pr." + c), List.of("q." + c),
                new StageKind.Compute(new ComputeOp.Concat(1))));
        e.rewire("allreduce_w2", "p." + c, "q." + c);
    }
}
