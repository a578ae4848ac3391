package org.stagecheck.author.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.author.Weights;
import org.stagecheck.author.build.ProgramBuilder;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Machine;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.TensorRole;

/**
 * Writes the program of one cut of a model, on one chip or split over {@code tp} chips
 * (brief, "Cuts of a model"; docs/author.md). The writer walks the model's math in order; every
 * phase runs on each chip in turn, and the two row-parallel projections of a layer ({@code wo},
 * {@code w_down}) end with an AllReduce across chips before the residual add.
 *
 * <p>Lowering: activations live on each chip's core (0,0). A matmul with weight {@code [K, N]}
 * is tiled by output columns over the chip's cores ({@link TiledMatmul}); norms, rotary,
 * attention ({@link Attention}) and the MLP gate run on core (0,0). The bound tensors and their
 * sources are declared by {@link BoundTensors}.
 */
public final class CutWriter {
    /** The program and the facts about its tensors that the caller needs to bind and certify it. */
    public record Written(Program program, Map<String, Binding> bindings, List<ShardDecl> shards) {}

    private final ModelSpec spec;
    private final org.stagecheck.author.Architecture arch;
    private final CutPlan plan;
    private final int tp;
    private final ProgramBuilder b;
    private final BoundTensors bound;
    private final TiledMatmul tiled;
    private final Attention attention;
    private final MixtureOfExperts experts;
    private final org.stagecheck.author.ExpertSplit expertSplit;

    private CutWriter(ModelSpec spec, Cut cut, int tp, int gridWidth, int gridHeight, DType weightDType, boolean denseExperts,
                      org.stagecheck.author.ExpertSplit expertSplit) {
        this.expertSplit = expertSplit;
        this.spec = spec;
        this.arch = spec.arch();
        this.plan = CutPlan.of(cut, spec.layers(), spec.cacheSlots(cut.ctx()));
        this.tp = tp;
        String name = spec.name() + "." + cut.cliName() + describe(cut) + (tp > 1 ? ".tp" + tp : "");
        this.b = new ProgramBuilder(name, new Machine(tp, gridWidth, gridHeight));
        this.bound = new BoundTensors(b, tp, weightDType);
        this.tiled = new TiledMatmul(b, bound, gridWidth, gridHeight);
        this.attention = new Attention(b, bound, plan, spec.headDim());
        this.experts = new MixtureOfExperts(b, bound, tiled, spec, denseExperts);
    }

    /**
     * Writes {@code cut}. The caller has checked the options: layer in range, tp dividing heads,
     * kvHeads and ffn, and (for tp > 1) a splittable cut.
     */
    public static Written write(ModelSpec spec, Cut cut, int tp, int gridWidth, int gridHeight, DType weightDType) {
        return write(spec, cut, new org.stagecheck.author.AuthorOptions(tp, gridWidth, gridHeight, weightDType));
    }

    /** {@link #write(ModelSpec, Cut, int, int, int, DType)} with every authoring option. */
    public static Written write(ModelSpec spec, Cut cut, org.stagecheck.author.AuthorOptions options) {
        CutWriter w = new CutWriter(spec, cut, options.tp(), options.gridWidth(), options.gridHeight(), options.weightDType(),
                options.denseExperts(), options.expertSplit());
        w.writeAll();
        return new Written(w.b.build(), w.bound.bindings(), w.bound.shards());
    }

    /** The cut's options in the program's name, e.g. {@code .l1.rows2.ctx8} for BatchLayer{1, 2, 8}. */
    private static String describe(Cut cut) {
        StringBuilder sb = new StringBuilder();
        cut.options().forEach((option, value) ->
                sb.append('.').append(option.equals("layer") ? "l" : option).append(value));
        return sb.toString();
    }

    // ------------------------------------------------------------------ the model, in order

    private void writeAll() {
        int rows = plan.rows();
        int d = spec.hidden();
        DType wdt = bound.weightDType();
        if (plan.usesCache()) {
            switch (plan.step()) {
                case Cut.Step.Decode _ -> b.param("pos", 0, plan.ctx() - 1);
                case Cut.Step.Prefill _ -> b.param("pos", 0, plan.ctx() - rows);
                case Cut.Step.Batch _, Cut.Step.Forward _ -> { }
            }
        }
        List<ChipState> chips = new ArrayList<>();
        for (int c = 0; c < tp; c++) {
            ChipState s = new ChipState(c);
            chips.add(s);
            if (plan.embed()) {
                String tokens = bound.replicated("tokens", c, DType.I32, Shape.of(rows), TensorRole.INPUT);
                String ids = b.loadAll("tokens", s.home, tokens);
                String table = bound.replicatedWeight("embed", c, Shape.of(spec.vocab(), d));
                s.hidden = b.loadIndirect("x", s.home, table, ids);
                if (wdt != DType.F32) {
                    // the hidden state is f32 whatever the weights' storage
                    s.hidden = b.generic("x_f32", Expr.in(0), DType.F32, b.shape(s.hidden), s.hidden);
                }
            } else {
                String hIn = bound.replicated("h_in", c, DType.F32, Shape.of(rows, d), TensorRole.INPUT);
                s.hidden = b.loadAll("h_in", s.home, hIn);
            }
            if (plan.usesCache()) {
                loadPositions(s);
            }
        }
        for (int l = plan.firstLayer(); l < plan.endLayer(); l++) {
            layer(chips, l);
        }
        ChipState first = chips.getFirst();
        if (plan.head()) {
            head(first);
        } else {
            String out = b.tensor("h_out", DType.F32, Shape.of(rows, d), 0, TensorRole.OUTPUT);
            b.storeAll("h_out", first.hidden, out);
        }
    }

    /** Rotary rows for this step's positions, and (batch) each row's position as a one-element buffer. */
    private void loadPositions(ChipState s) {
        int half = spec.headDim() / 2;
        int rows = plan.rows();
        Shape table = Shape.of(plan.ctx(), half);
        String cos = bound.replicated("rope_cos", s.chip, DType.F32, table, TensorRole.WEIGHT);
        String sin = bound.replicated("rope_sin", s.chip, DType.F32, table, TensorRole.WEIGHT);
        switch (plan.step()) {
            case Cut.Step.Decode _, Cut.Step.Prefill _ -> {
                List<Offset> at = List.of(Offset.param("pos", 1, 0), Offset.constant(0));
                s.ropeCos = b.loadBlock("cos", s.home, cos, at, Shape.of(rows, half));
                s.ropeSin = b.loadBlock("sin", s.home, sin, at, Shape.of(rows, half));
            }
            case Cut.Step.Batch _ -> {
                String positions = bound.replicated("positions", s.chip, DType.I32, Shape.of(rows), TensorRole.INPUT);
                String index = b.loadAll("positions", s.home, positions);
                s.ropeCos = b.loadIndirect("cos", s.home, cos, index);
                s.ropeSin = b.loadIndirect("sin", s.home, sin, index);
                for (int r = 0; r < rows; r++) {
                    s.rowPos.add(b.loadBlock("pos_r" + r, s.home, positions, List.of(Offset.constant(r)), Shape.of(1)));
                }
            }
            case Cut.Step.Forward _ -> throw new IllegalStateException("a forward cut has no cache");
        }
    }

    private void layer(List<ChipState> chips, int l) {
        int hl = spec.heads() / tp;
        int khl = spec.kvHeads() / tp;
        int dh = spec.headDim();
        int fl = spec.ffn() / tp;
        int d = spec.hidden();
        boolean rotary = !(plan.step() instanceof Cut.Step.Forward);
        List<String> attnPartials = new ArrayList<>();
        for (ChipState s : chips) {
            int c = s.chip;
            String y = rmsNorm("attn_norm.l" + l, s, bound.replicatedWeight(Weights.layerName("attn_norm", l), c, Shape.of(1, d)));
            String q = tiled.matmul("q.l" + l, s, y, bound.columnShard(Weights.layerName("wq", l), c, d, spec.qWidth(), hl * dh));
            String k = tiled.matmul("k.l" + l, s, y, bound.columnShard(Weights.layerName("wk", l), c, d, spec.kvWidth(), khl * dh));
            String v = tiled.matmul("v.l" + l, s, y, bound.columnShard(Weights.layerName("wv", l), c, d, spec.kvWidth(), khl * dh));
            if (arch.qkvBias()) {
                q = addBias("q.l" + l, s, q, bound.columnShard(Weights.layerName("bq", l), c, 1, spec.qWidth(), hl * dh));
                k = addBias("k.l" + l, s, k, bound.columnShard(Weights.layerName("bk", l), c, 1, spec.kvWidth(), khl * dh));
                v = addBias("v.l" + l, s, v, bound.columnShard(Weights.layerName("bv", l), c, 1, spec.kvWidth(), khl * dh));
            }
            if (arch.qkNorm()) {
                q = headNorm("q_norm.l" + l, s, q, hl, bound.replicatedWeight(Weights.layerName("q_norm", l), c, Shape.of(1, dh)));
                k = headNorm("k_norm.l" + l, s, k, khl, bound.replicatedWeight(Weights.layerName("k_norm", l), c, Shape.of(1, dh)));
            }
            if (rotary) {
                q = rope("q.l" + l, s, q, hl);
                k = rope("k.l" + l, s, k, khl);
            }
            String attn = attention.attend(s, l, q, k, v, hl, khl);
            attnPartials.add(tiled.matmul("o.l" + l, s, attn, bound.rowShard(Weights.layerName("wo", l), c, spec.qWidth(), d, hl * dh)));
        }
        List<String> attnOut = reduceAcrossChips("o.l" + l, Weights.layerName("wo", l), attnPartials);
        if (arch.outputBias()) {
            attnOut = addReplicatedBias("o.l" + l, chips, attnOut, Weights.layerName("bo", l));
        }
        if (arch.moe().sparse(l)) {
            List<String> moeOut = new ArrayList<>();
            for (ChipState s : chips) {
                s.hidden = b.generic("resid1.l" + l, Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)), DType.F32,
                        b.shape(s.hidden), s.hidden, attnOut.get(s.chip));
                String y = rmsNorm("mlp_norm.l" + l, s, bound.replicatedWeight(Weights.layerName("mlp_norm", l), s.chip, Shape.of(1, d)));
                moeOut.add(tp == 1 ? experts.mlp(s, l, y) : experts.partial(s, l, y, tp, expertSplit));
            }
            // split, each chip's output is a partial: one sum all-reduce completes it
            List<String> reduced = reduceAcrossChips("moe.l" + l, Weights.layerName("moe", l), moeOut);
            for (ChipState s : chips) {
                s.hidden = b.generic("resid2.l" + l, Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)), DType.F32,
                        b.shape(s.hidden), s.hidden, reduced.get(s.chip));
            }
            return;
        }
        List<String> mlpPartials = new ArrayList<>();
        for (ChipState s : chips) {
            int c = s.chip;
            s.hidden = b.generic("resid1.l" + l, Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)), DType.F32,
                    b.shape(s.hidden), s.hidden, attnOut.get(c));
            String y = rmsNorm("mlp_norm.l" + l, s, bound.replicatedWeight(Weights.layerName("mlp_norm", l), c, Shape.of(1, d)));
            String gate = tiled.matmul("gate.l" + l, s, y, bound.columnShard(Weights.layerName("w_gate", l), c, d, spec.ffn(), fl));
            String up = tiled.matmul("up.l" + l, s, y, bound.columnShard(Weights.layerName("w_up", l), c, d, spec.ffn(), fl));
            if (arch.mlpBias()) {
                gate = addBias("gate.l" + l, s, gate, bound.columnShard(Weights.layerName("b_gate", l), c, 1, spec.ffn(), fl));
                up = addBias("up.l" + l, s, up, bound.columnShard(Weights.layerName("b_up", l), c, 1, spec.ffn(), fl));
            }
            // SiLU(gate) * up: x * sigmoid(x) * u
            String act = b.generic("swiglu.l" + l, Expr.apply(Fn.MUL,
                            Expr.apply(Fn.MUL, Expr.in(0), Expr.apply(Fn.SIGMOID, Expr.in(0))), Expr.in(1)),
                    DType.F32, b.shape(gate), gate, up);
            mlpPartials.add(tiled.matmul("down.l" + l, s, act, bound.rowShard(Weights.layerName("w_down", l), c, spec.ffn(), d, fl)));
        }
        List<String> mlpOut = reduceAcrossChips("down.l" + l, Weights.layerName("w_down", l), mlpPartials);
        if (arch.mlpBias()) {
            mlpOut = addReplicatedBias("down.l" + l, chips, mlpOut, Weights.layerName("b_down", l));
        }
        for (ChipState s : chips) {
            s.hidden = b.generic("resid2.l" + l, Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)), DType.F32,
                    b.shape(s.hidden), s.hidden, mlpOut.get(s.chip));
        }
    }

    /** On one chip the value itself; split, the AllReduce(SUM) of the chips' partials, one result per chip. */
    private List<String> reduceAcrossChips(String hint, String logical, List<String> partials) {
        if (partials.size() == 1) {
            return partials;
        }
        return b.allReduce("allreduce_" + hint, logical, partials);
    }

    /** Final RMSNorm, head projection, logits and arg-max, on chip 0 (prefill: of the last row only). */
    private void head(ChipState s) {
        int d = spec.hidden();
        int rows = plan.rows();
        int outRows = rows;
        if (plan.step() instanceof Cut.Step.Prefill && rows > 1) {
            s.hidden = b.slice("last_row", s.hidden, List.of(rows - 1, 0), Shape.of(1, d));
            outRows = 1;
        }
        String y = rmsNorm("final_norm", s, bound.replicatedWeight("final_norm", s.chip, Shape.of(1, d)));
        String logits = tiled.matmul("logits", s, y, bound.replicatedWeight("head", s.chip, Shape.of(d, spec.vocab())));
        b.storeAll("logits", logits, b.tensor("logits", DType.F32, Shape.of(outRows, spec.vocab()), 0, TensorRole.OUTPUT));
        String best = b.reduce("argmax", ReduceFn.ARGMAX, 1, logits);
        String flat = b.reshape("next_token", best, Shape.of(outRows));
        b.storeAll("next_token", flat, b.tensor("next_token", DType.I32, Shape.of(outRows), 0, TensorRole.OUTPUT));
    }

    // ------------------------------------------------------------------ pieces of the math

    /** {@code x + bias}, the bias {@code [1, N]} (this chip's columns) broadcast over the rows. */
    private String addBias(String hint, ChipState s, String x, String biasTensor) {
        String bias = b.loadAll(hint + ".bias", s.home, biasTensor);
        return b.generic(hint + ".biased", Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)), DType.F32, b.shape(x), x, bias);
    }

    /**
     * The bias of a row-parallel projection ({@code wo}, {@code w_down}), added once to the
     * reduced sum on every chip (each chip holds the whole bias), not to each chip's partial.
     */
    private List<String> addReplicatedBias(String hint, List<ChipState> chips, List<String> reduced, String logical) {
        List<String> out = new ArrayList<>();
        for (ChipState s : chips) {
            String t = bound.replicatedWeight(logical, s.chip, Shape.of(1, spec.hidden()));
            out.add(addBias(hint, s, reduced.get(s.chip), t));
        }
        return out;
    }

    /**
     * RMSNorm of each head of {@code x} ({@code [rows, heads*headDim]}) over its {@code headDim}
     * values with weight {@code [1, headDim]} (Qwen3's q_norm and k_norm, before the rotary):
     * {@code x * rsqrt(sum(x^2)/Dh + eps) * w} per head.
     */
    private String headNorm(String hint, ChipState s, String x, int heads, String weightTensor) {
        int rows = plan.rows();
        int dh = spec.headDim();
        Shape perHead = Shape.of(rows, heads, dh);
        String w = b.loadAll(hint + ".w", s.home, weightTensor);
        String x3 = b.reshape(hint + ".heads", x, perHead);
        String sq = b.generic(hint + ".sq", Expr.apply(Fn.MUL, Expr.in(0), Expr.in(0)), DType.F32, perHead, x3);
        String ss = b.reduce(hint + ".ss", ReduceFn.SUM, 2, sq);
        Expr inv = Expr.apply(Fn.RSQRT, Expr.apply(Fn.ADD,
                Expr.apply(Fn.DIV, Expr.in(1), Expr.f(dh)), Expr.f(spec.normEps())));
        String normed = b.generic(hint, Expr.apply(Fn.MUL, Expr.apply(Fn.MUL, Expr.in(0), inv), Expr.in(2)),
                DType.F32, perHead, x3, ss, w);
        return b.reshape(hint + ".flat", normed, Shape.of(rows, heads * dh));
    }

    /** {@code x * rsqrt(mean(x^2) + eps) * w}, mean over the hidden axis (Reduce SUM then divide by D). */
    private String rmsNorm(String hint, ChipState s, String weightTensor) {
        String x = s.hidden;
        Shape shape = b.shape(x);
        String w = b.loadAll(hint + ".w", s.home, weightTensor);
        String sq = b.generic(hint + ".sq", Expr.apply(Fn.MUL, Expr.in(0), Expr.in(0)), DType.F32, shape, x);
        String ss = b.reduce(hint + ".ss", ReduceFn.SUM, 1, sq);
        Expr inv = Expr.apply(Fn.RSQRT, Expr.apply(Fn.ADD,
                Expr.apply(Fn.DIV, Expr.in(1), Expr.f(shape.dim(1))), Expr.f(spec.normEps())));
        return b.generic(hint, Expr.apply(Fn.MUL, Expr.apply(Fn.MUL, Expr.in(0), inv), Expr.in(2)),
                DType.F32, shape, x, ss, w);
    }

    /**
     * Rotary embedding of {@code x} ({@code [rows, heads*headDim]}) with this step's cos/sin rows:
     * per head, element i pairs with i + headDim/2: {@code (a, b) -> (a cos - b sin, b cos + a sin)}.
     */
    private String rope(String hint, ChipState s, String x, int heads) {
        int rows = plan.rows();
        int dh = spec.headDim();
        int half = dh / 2;
        String x3 = b.reshape(hint + ".heads", x, Shape.of(rows, heads, dh));
        String lo = b.slice(hint + ".lo", x3, List.of(0, 0, 0), Shape.of(rows, heads, half));
        String hi = b.slice(hint + ".hi", x3, List.of(0, 0, half), Shape.of(rows, heads, half));
        String cos = b.reshape(hint + ".cos", s.ropeCos, Shape.of(rows, 1, half));
        String sin = b.reshape(hint + ".sin", s.ropeSin, Shape.of(rows, 1, half));
        Shape out = Shape.of(rows, heads, half);
        String rlo = b.generic(hint + ".rot_lo", Expr.apply(Fn.SUB,
                Expr.apply(Fn.MUL, Expr.in(0), Expr.in(2)), Expr.apply(Fn.MUL, Expr.in(1), Expr.in(3))),
                DType.F32, out, lo, hi, cos, sin);
        String rhi = b.generic(hint + ".rot_hi", Expr.apply(Fn.ADD,
                Expr.apply(Fn.MUL, Expr.in(1), Expr.in(2)), Expr.apply(Fn.MUL, Expr.in(0), Expr.in(3))),
                DType.F32, out, lo, hi, cos, sin);
        String joined = b.concat(hint + ".rot", 2, List.of(rlo, rhi));
        return b.reshape(hint + ".roped", joined, Shape.of(rows, heads * dh));
    }
}
