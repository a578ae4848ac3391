package org.stagecheck.author.model;

import java.util.ArrayList;
import java.util.List;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.author.Moe;
import org.stagecheck.author.Weights;
import org.stagecheck.author.build.ProgramBuilder;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.Shape;

/**
 * The cut writer's mixture-of-experts MLP of a sparse layer, on core (0,0) of one chip
 * (docs/author.md, "Mixture of experts"). Routing runs on the chip: router scores, their softmax
 * over all experts, the top k by repeated arg-max (ties to the lower index), then the chosen
 * experts enumerated in ascending index (repeated arg-max over the chosen mask) with their weights.
 * The experts' weights are stacked per layer: {@code experts_gate.l<i>} and {@code experts_up.l<i>}
 * are {@code [E*D, Fm]}, expert e's block at rows {@code e*D}; {@code experts_down.l<i>} is
 * {@code [Fm, E*D]}, expert e's block at columns {@code e*D}, so that both a chip's experts
 * (expert-parallel) and a chip's columns of every expert (tensor-parallel) are one slice of each
 * stack. Each row reads only its chosen experts' blocks, at an
 * offset a Scalar stage takes from the routing. Or, for the dispatch law, every expert on every
 * row, masked by the routing ({@code dense}): the same sums, term for term.
 */
final class MixtureOfExperts {
    private final ProgramBuilder b;
    private final BoundTensors bound;
    private final TiledMatmul tiled;
    private final ModelSpec spec;
    private final Moe moe;
    private final boolean dense;

    MixtureOfExperts(ProgramBuilder b, BoundTensors bound, TiledMatmul tiled, ModelSpec spec, boolean dense) {
        this.b = b;
        this.bound = bound;
        this.tiled = tiled;
        this.spec = spec;
        this.moe = spec.arch().moe();
        this.dense = dense;
    }

    /** The routing of every row: the chosen experts in ascending index, and each one's weight. */
    private record Routing(List<String> experts, List<String> weights, String coefficients) {}

    /** The MLP output {@code [rows, D]} of {@code y} (the post-attention-norm activations) in sparse layer {@code l}. */
    String mlp(ChipState s, int l, String y) {
        Routing routing = route(s, l, y);
        String out = dense ? allExperts(s, l, y, routing) : chosenExperts(s, l, y, routing);
        if (moe.shared()) {
            out = b.generic("moe_out.l" + l, Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)), DType.F32, b.shape(out), out, sharedExpert(s, l, y, 1));
        }
        return out;
    }

    private Routing route(ChipState s, int l, String y) {
        int d = spec.hidden();
        int e = moe.experts();
        String h = "router.l" + l;
        String scores = tiled.matmul(h, s, y, bound.replicatedWeight(Weights.layerName("router", l), s.chip, Shape.of(d, e)));
        Shape shape = b.shape(scores);
        String max = b.reduce(h + ".max", ReduceFn.MAX, 1, scores);
        String ex = b.generic(h + ".exp", Expr.apply(Fn.EXP, Expr.apply(Fn.SUB, Expr.in(0), Expr.in(1))), DType.F32, shape, scores, max);
        String sum = b.reduce(h + ".sum", ReduceFn.SUM, 1, ex);
        String probs = b.generic(h + ".p", Expr.apply(Fn.DIV, Expr.in(0), Expr.in(1)), DType.F32, shape, ex, sum);
        // the top k: repeated arg-max, each winner masked to -inf; the winners' values summed in rank order
        String masked = probs;
        String total = null;
        Expr isIn1 = Expr.apply(Fn.EQ, new Expr.Index(1), Expr.in(1));
        for (int k = 0; k < moe.topK(); k++) {
            String top = b.reduce(h + ".top" + k, ReduceFn.MAX, 1, masked);
            String at = b.reduce(h + ".top_at" + k, ReduceFn.ARGMAX, 1, masked);
            masked = b.generic(h + ".masked" + k, Expr.apply(Fn.SELECT, isIn1, Expr.f(Double.NEGATIVE_INFINITY), Expr.in(0)),
                    DType.F32, shape, masked, at);
            total = total == null ? top : b.generic(h + ".total" + k, Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)), DType.F32,
                    b.shape(top), total, top);
        }
        // 1 where chosen, else 0; then the chosen enumerated in ascending index
        String remaining = b.generic(h + ".chosen", Expr.apply(Fn.SELECT, Expr.apply(Fn.EQ, Expr.in(0), Expr.f(Double.NEGATIVE_INFINITY)),
                Expr.f(1.0), Expr.f(0.0)), DType.F32, shape, masked);
        Expr weightOf = moe.normTopK() ? Expr.apply(Fn.DIV, Expr.in(0), Expr.in(2)) : Expr.in(0);
        String coefficients = b.generic(h + ".coeff", Expr.apply(Fn.SELECT, Expr.apply(Fn.EQ, Expr.in(1), Expr.f(1.0)),
                weightOf, Expr.f(0.0)), DType.F32, shape, probs, remaining, total);
        List<String> experts = new ArrayList<>();
        List<String> weights = new ArrayList<>();
        for (int k = 0; k < moe.topK(); k++) {
            String at = b.reduce(h + ".expert" + k, ReduceFn.ARGMAX, 1, remaining);
            String picked = b.generic(h + ".pick" + k, Expr.apply(Fn.SELECT, isIn1, Expr.in(0), Expr.f(0.0)), DType.F32, shape, coefficients, at);
            weights.add(b.reduce(h + ".weight" + k, ReduceFn.SUM, 1, picked));
            experts.add(at);
            remaining = b.generic(h + ".left" + k, Expr.apply(Fn.SELECT, isIn1, Expr.f(0.0), Expr.in(0)), DType.F32, shape, remaining, at);
        }
        return new Routing(experts, weights, coefficients);
    }

    /**
     * This chip's partial of a split sparse layer: its part of the chosen experts (expert-parallel:
     * the chosen experts it owns, whole; tensor-parallel: its columns of every chosen expert), plus
     * its part of the shared expert (always split by columns), to be completed by one sum
     * all-reduce. Every chip routes every row itself from the replicated router.
     */
    String partial(ChipState s, int l, String y, int tp, org.stagecheck.author.ExpertSplit split) {
        Routing routing = route(s, l, y);
        int d = spec.hidden();
        int f = moe.expertFfn();
        int e = moe.experts();
        int c = s.chip;
        Experts mine = switch (split) {
            case EXPERT_PARALLEL -> {
                int n = e / tp;
                yield new Experts(bound.sliceShard(Weights.layerName("experts_gate", l), c, Shape.of(e * d, f), 0, n * d),
                        bound.sliceShard(Weights.layerName("experts_up", l), c, Shape.of(e * d, f), 0, n * d),
                        bound.sliceShard(Weights.layerName("experts_down", l), c, Shape.of(f, e * d), 1, n * d), f, c * n, n);
            }
            case TENSOR_PARALLEL -> new Experts(
                    bound.columnShard(Weights.layerName("experts_gate", l), c, e * d, f, f / tp),
                    bound.columnShard(Weights.layerName("experts_up", l), c, e * d, f, f / tp),
                    bound.rowShard(Weights.layerName("experts_down", l), c, f, e * d, f / tp), f / tp, 0, e);
        };
        String out = perRow(s, l, y, routing, mine);
        if (moe.shared()) {
            out = b.generic("moe_out.l" + l, Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)), DType.F32, b.shape(out), out,
                    sharedExpert(s, l, y, tp));
        }
        return out;
    }

    /**
     * The expert stacks a chip holds: experts {@code [first, first+count)} (global indices), each
     * {@code width} columns wide in the gate and up stacks and as many rows in the down stack.
     */
    private record Experts(String gate, String up, String down, int width, int first, int count) {}

    /** Each row's chosen experts only: their weight blocks read at offsets taken from the routing. */
    private String chosenExperts(ChipState s, int l, String y, Routing routing) {
        int d = spec.hidden();
        int f = moe.expertFfn();
        int e = moe.experts();
        Experts all = new Experts(bound.replicatedWeight(Weights.layerName("experts_gate", l), s.chip, Shape.of(e * d, f)),
                bound.replicatedWeight(Weights.layerName("experts_up", l), s.chip, Shape.of(e * d, f)),
                bound.replicatedWeight(Weights.layerName("experts_down", l), s.chip, Shape.of(f, e * d)), f, 0, e);
        return perRow(s, l, y, routing, all);
    }

    /**
     * Row by row, slot by slot: the chosen expert's blocks read at an offset a Scalar stage takes
     * from the routing, its output scaled by its weight and summed in ascending expert index. When
     * the chip holds only some experts, a chosen expert it does not hold reads its first block and
     * is scaled by 0 (its weight masked by a Generic), so the chip's sum is its partial.
     */
    private String perRow(ChipState s, int l, String y, Routing routing, Experts held) {
        int d = spec.hidden();
        int rows = b.shape(y).dim(0);
        boolean some = held.count() < moe.experts();
        List<String> outs = new ArrayList<>();
        for (int r = 0; r < rows; r++) {
            String h = "moe.l" + l + ".r" + r;
            String x = rows == 1 ? y : b.slice(h + ".x", y, List.of(r, 0), Shape.of(1, d));
            String acc = null;
            for (int k = 0; k < moe.topK(); k++) {
                String hk = h + ".k" + k;
                String pick = b.reshape(hk + ".pick", b.slice(hk + ".at", routing.experts().get(k), List.of(r, 0), Shape.of(1, 1)), Shape.of(1));
                Expr heldHere = Expr.apply(Fn.AND, Expr.apply(Fn.GE, Expr.in(0), Expr.i(held.first())),
                        Expr.apply(Fn.LT, Expr.in(0), Expr.i(held.first() + held.count())));
                Expr local = some ? Expr.apply(Fn.SELECT, heldHere, Expr.apply(Fn.SUB, Expr.in(0), Expr.i(held.first())), Expr.i(0)) : Expr.in(0);
                String expert = b.scalar(hk + ".expert", local, pick);
                String c = expertOutput(s, hk, x, held.gate(), held.up(), held.down(), expert, 0, held.width());
                String w = b.slice(hk + ".w", routing.weights().get(k), List.of(r, 0), Shape.of(1, 1));
                if (some) {
                    String at = b.slice(hk + ".owner", routing.experts().get(k), List.of(r, 0), Shape.of(1, 1));
                    Expr heldW = Expr.apply(Fn.AND, Expr.apply(Fn.GE, Expr.in(1), Expr.i(held.first())),
                            Expr.apply(Fn.LT, Expr.in(1), Expr.i(held.first() + held.count())));
                    w = b.generic(hk + ".w_here", Expr.apply(Fn.SELECT, heldW, Expr.in(0), Expr.f(0.0)), DType.F32, Shape.of(1, 1), w, at);
                }
                String scaled = b.generic(hk + ".scaled", Expr.apply(Fn.MUL, Expr.in(0), Expr.in(1)), DType.F32, b.shape(c), c, w);
                acc = acc == null ? scaled : b.generic(hk + ".sum", Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)), DType.F32, b.shape(c), acc, scaled);
            }
            outs.add(acc);
        }
        return b.concat("moe.l" + l, 0, outs);
    }

    /** Every expert on every row, scaled by its routing coefficient (0 when not chosen), summed in ascending index. */
    private String allExperts(ChipState s, int l, String y, Routing routing) {
        int d = spec.hidden();
        int f = moe.expertFfn();
        int e = moe.experts();
        int rows = b.shape(y).dim(0);
        String gate = bound.replicatedWeight(Weights.layerName("experts_gate", l), s.chip, Shape.of(e * d, f));
        String up = bound.replicatedWeight(Weights.layerName("experts_up", l), s.chip, Shape.of(e * d, f));
        String down = bound.replicatedWeight(Weights.layerName("experts_down", l), s.chip, Shape.of(f, e * d));
        String acc = null;
        for (int x = 0; x < e; x++) {
            String h = "moe.l" + l + ".e" + x;
            String c = expertOutput(s, h, y, gate, up, down, null, x, f);
            String w = b.slice(h + ".w", routing.coefficients(), List.of(0, x), Shape.of(rows, 1));
            String scaled = b.generic(h + ".scaled", Expr.apply(Fn.MUL, Expr.in(0), Expr.in(1)), DType.F32, b.shape(c), c, w);
            acc = acc == null ? scaled : b.generic(h + ".sum", Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)), DType.F32, b.shape(c), acc, scaled);
        }
        return acc;
    }

    /**
     * One expert's gated MLP of {@code x}: {@code down(silu(x gate) * (x up))}, the expert chosen by
     * the one-element buffer {@code expert} (its blocks at {@code expert*D}) or, when it is null,
     * the constant {@code fixed}.
     */
    private String expertOutput(ChipState s, String h, String x, String gate, String up, String down, String expert, int fixed,
                                int f) {
        int d = spec.hidden();
        // expert e: rows [e*D, (e+1)*D) of the gate and up stacks, columns [e*D, (e+1)*D) of the down stack
        Offset block = expert == null ? Offset.constant((long) fixed * d) : new Offset(0, List.of(new Offset.Term.OfBuffer(d, expert)));
        String g = b.matmul(h + ".gate", x, b.loadBlock(h + ".w_gate", s.home, gate, List.of(block, Offset.constant(0)), Shape.of(d, f)), false);
        String u = b.matmul(h + ".up", x, b.loadBlock(h + ".w_up", s.home, up, List.of(block, Offset.constant(0)), Shape.of(d, f)), false);
        String a = b.generic(h + ".swiglu", Expr.apply(Fn.MUL, Expr.apply(Fn.MUL, Expr.in(0), Expr.apply(Fn.SIGMOID, Expr.in(0))), Expr.in(1)),
                DType.F32, b.shape(g), g, u);
        return b.matmul(h + ".down", a, b.loadBlock(h + ".w_down", s.home, down, List.of(Offset.constant(0), block), Shape.of(f, d)), false);
    }

    /** Qwen2-MoE's shared expert: {@code sigmoid(y shared_expert_gate) * down(silu(y gate) * (y up))}. */
    private String sharedExpert(ChipState s, int l, String y, int tp) {
        int d = spec.hidden();
        int f = moe.sharedFfn();
        int c = s.chip;
        String h = "shared.l" + l;
        String g = tiled.matmul(h + ".gate", s, y, bound.columnShard(Weights.layerName("shared_gate", l), c, d, f, f / tp));
        String u = tiled.matmul(h + ".up", s, y, bound.columnShard(Weights.layerName("shared_up", l), c, d, f, f / tp));
        String a = b.generic(h + ".swiglu", Expr.apply(Fn.MUL, Expr.apply(Fn.MUL, Expr.in(0), Expr.apply(Fn.SIGMOID, Expr.in(0))), Expr.in(1)),
                DType.F32, b.shape(g), g, u);
        String out = tiled.matmul(h + ".down", s, a, bound.rowShard(Weights.layerName("shared_down", l), c, f, d, f / tp));
        String gateScore = tiled.matmul(h + ".score", s, y, bound.replicatedWeight(Weights.layerName("shared_expert_gate", l), s.chip, Shape.of(d, 1)));
        return b.generic(h + ".scaled", Expr.apply(Fn.MUL, Expr.apply(Fn.SIGMOID, Expr.in(1)), Expr.in(0)), DType.F32, b.shape(out), out, gateScore);
    }
}
