package org.stagecheck.author.model;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
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
import org.stagecheck.spec.ir.Rect;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.TensorRole;

/**
 * Writes the program of one cut of a model, on one chip or split over {@code tp} chips
 * (brief, "Cuts of a model"; docs/author.md). The writer walks the model's math in order; every
 * phase runs on each chip in turn, and the two row-parallel projections of a layer ({@code wo},
 * {@code w_down}) end with an AllReduce across chips before the residual add.
 *
 * <p>Lowering: activations live on each chip's core (0,0). A matmul with weight {@code [K, N]}
 * is tiled by output columns over the chip's cores (see {@link #matmul}); norms, rotary,
 * attention and the MLP gate run on core (0,0).
 */
public final class CutWriter {
    /** The program and the facts about its tensors that the caller needs to bind and certify it. */
    public record Written(Program program, Map<String, Binding> bindings, List<ShardDecl> shards) {}

    private final ModelSpec spec;
    private final CutPlan plan;
    private final int tp;
    private final int gridWidth;
    private final int gridHeight;
    /** The storage dtype of the model weights (activations, caches and rotary tables are f32). */
    private final DType wdt;
    private final ProgramBuilder b;
    private final Map<String, Binding> bindings = new LinkedHashMap<>();
    private final List<ShardDecl> shards = new ArrayList<>();
    /** Activation buffers already spread over a rectangle of cores, keyed by buffer and tile count. */
    private final Map<String, Map<Site, String>> spreads = new HashMap<>();

    private CutWriter(ModelSpec spec, Cut cut, int tp, int gridWidth, int gridHeight, DType weightDType) {
        this.spec = spec;
        this.wdt = weightDType;
        this.plan = CutPlan.of(cut, spec.layers());
        this.tp = tp;
        this.gridWidth = gridWidth;
        this.gridHeight = gridHeight;
        String name = spec.name() + "." + cut.cliName() + describe(cut) + (tp > 1 ? ".tp" + tp : "");
        this.b = new ProgramBuilder(name, new Machine(tp, gridWidth, gridHeight));
    }

    /**
     * Writes {@code cut}. The caller has checked the options: layer in range, tp dividing heads,
     * kvHeads and ffn, and (for tp > 1) a splittable cut.
     */
    public static Written write(ModelSpec spec, Cut cut, int tp, int gridWidth, int gridHeight, DType weightDType) {
        CutWriter w = new CutWriter(spec, cut, tp, gridWidth, gridHeight, weightDType);
        w.writeAll();
        return new Written(w.b.build(), Map.copyOf(w.bindings), List.copyOf(w.shards));
    }

    private static String describe(Cut cut) {
        return switch (cut) {
            case Cut.Decode d -> ".ctx" + d.ctx();
            case Cut.Prefill p -> ".rows" + p.rows() + ".ctx" + p.ctx();
            case Cut.Batch bt -> ".rows" + bt.rows() + ".ctx" + bt.ctx();
            case Cut.Forward f -> "";
            case Cut.ForwardLayer f -> ".l" + f.layer();
            case Cut.ForwardHead f -> "";
            case Cut.DecodeEmbed d -> "";
            case Cut.DecodeLayer d -> ".l" + d.layer() + ".ctx" + d.ctx();
            case Cut.DecodeHead d -> "";
            case Cut.BatchEmbed bt -> ".rows" + bt.rows();
            case Cut.BatchLayer bt -> ".l" + bt.layer() + ".rows" + bt.rows() + ".ctx" + bt.ctx();
            case Cut.BatchHead bt -> ".rows" + bt.rows();
            case Cut.PrefillLayer p -> ".l" + p.layer() + ".rows" + p.rows() + ".ctx" + p.ctx();
            case Cut.PrefillHead p -> ".rows" + p.rows();
        };
    }

    // ------------------------------------------------------------------ the model, in order

    /** Per-chip state of the walk: the hidden state and the per-row position buffers. */
    private static final class ChipState {
        final int chip;
        final Site home;
        String hidden;
        String ropeCos;
        String ropeSin;
        /** Batch mode: row r's position as a one-element i32 buffer. */
        final List<String> rowPos = new ArrayList<>();

        ChipState(int chip) {
            this.chip = chip;
            this.home = new Site(chip, 0, 0);
        }
    }

    private void writeAll() {
        int rows = plan.rows();
        int d = spec.hidden();
        if (plan.mode() == Mode.DECODE && plan.usesCache()) {
            b.param("pos", 0, plan.ctx() - 1);
        } else if (plan.mode() == Mode.PREFILL && plan.usesCache()) {
            b.param("pos", 0, plan.ctx() - rows);
        }
        List<ChipState> chips = new ArrayList<>();
        for (int c = 0; c < tp; c++) {
            ChipState s = new ChipState(c);
            chips.add(s);
            if (plan.embed()) {
                String tokens = replicated("tokens", c, DType.I32, Shape.of(rows), TensorRole.INPUT);
                String ids = b.loadAll("tokens", s.home, tokens);
                String table = replicated("embed", c, wdt, Shape.of(spec.vocab(), d), TensorRole.WEIGHT);
                s.hidden = b.loadIndirect("x", s.home, table, ids);
                if (wdt != DType.F32) {
                    // the hidden state is f32 whatever the weights' storage
                    s.hidden = b.generic("x_f32", Expr.in(0), DType.F32, b.shape(s.hidden), s.hidden);
                }
            } else {
                String hIn = replicated("h_in", c, DType.F32, Shape.of(rows, d), TensorRole.INPUT);
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
        String cos = replicated("rope_cos", s.chip, DType.F32, table, TensorRole.WEIGHT);
        String sin = replicated("rope_sin", s.chip, DType.F32, table, TensorRole.WEIGHT);
        switch (plan.mode()) {
            case DECODE, PREFILL -> {
                List<Offset> at = List.of(Offset.param("pos", 1, 0), Offset.constant(0));
                s.ropeCos = b.loadBlock("cos", s.home, cos, at, Shape.of(rows, half));
                s.ropeSin = b.loadBlock("sin", s.home, sin, at, Shape.of(rows, half));
            }
            case BATCH -> {
                String positions = replicated("positions", s.chip, DType.I32, Shape.of(rows), TensorRole.INPUT);
                String index = b.loadAll("positions", s.home, positions);
                s.ropeCos = b.loadIndirect("cos", s.home, cos, index);
                s.ropeSin = b.loadIndirect("sin", s.home, sin, index);
                for (int r = 0; r < rows; r++) {
                    s.rowPos.add(b.loadBlock("pos_r" + r, s.home, positions, List.of(Offset.constant(r)), Shape.of(1)));
                }
            }
            case FORWARD -> throw new IllegalStateException("a forward cut has no cache");
        }
    }

    private void layer(List<ChipState> chips, int l) {
        int hl = spec.heads() / tp;
        int khl = spec.kvHeads() / tp;
        int dh = spec.headDim();
        int fl = spec.ffn() / tp;
        int d = spec.hidden();
        List<String> attnPartials = new ArrayList<>();
        for (ChipState s : chips) {
            int c = s.chip;
            String y = rmsNorm("attn_norm.l" + l, s, replicated(Weights.layerName("attn_norm", l), c, wdt, Shape.of(1, d), TensorRole.WEIGHT));
            String q = matmul("q.l" + l, s, y, columnShard(Weights.layerName("wq", l), c, d, spec.qWidth(), hl * dh));
            String k = matmul("k.l" + l, s, y, columnShard(Weights.layerName("wk", l), c, d, spec.kvWidth(), khl * dh));
            String v = matmul("v.l" + l, s, y, columnShard(Weights.layerName("wv", l), c, d, spec.kvWidth(), khl * dh));
            if (plan.mode() != Mode.FORWARD) {
                q = rope("q.l" + l, s, q, hl);
                k = rope("k.l" + l, s, k, khl);
            }
            String attn = attention(s, l, q, k, v, hl, khl);
            attnPartials.add(matmul("o.l" + l, s, attn, rowShard(Weights.layerName("wo", l), c, spec.qWidth(), d, hl * dh)));
        }
        List<String> attnOut = reduceAcrossChips("o.l" + l, Weights.layerName("wo", l), attnPartials);
        List<String> mlpPartials = new ArrayList<>();
        for (ChipState s : chips) {
            int c = s.chip;
            s.hidden = b.generic("resid1.l" + l, Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)), DType.F32,
                    b.shape(s.hidden), s.hidden, attnOut.get(c));
            String y = rmsNorm("mlp_norm.l" + l, s, replicated(Weights.layerName("mlp_norm", l), c, wdt, Shape.of(1, d), TensorRole.WEIGHT));
            String gate = matmul("gate.l" + l, s, y, columnShard(Weights.layerName("w_gate", l), c, d, spec.ffn(), fl));
            String up = matmul("up.l" + l, s, y, columnShard(Weights.layerName("w_up", l), c, d, spec.ffn(), fl));
            // SiLU(gate) * up: x * sigmoid(x) * u
            String act = b.generic("swiglu.l" + l, Expr.apply(Fn.MUL,
                            Expr.apply(Fn.MUL, Expr.in(0), Expr.apply(Fn.SIGMOID, Expr.in(0))), Expr.in(1)),
                    DType.F32, b.shape(gate), gate, up);
            mlpPartials.add(matmul("down.l" + l, s, act, rowShard(Weights.layerName("w_down", l), c, spec.ffn(), d, fl)));
        }
        List<String> mlpOut = reduceAcrossChips("down.l" + l, Weights.layerName("w_down", l), mlpPartials);
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
        if (plan.mode() == Mode.PREFILL && rows > 1) {
            s.hidden = b.slice("last_row", s.hidden, List.of(rows - 1, 0), Shape.of(1, d));
            outRows = 1;
        }
        String y = rmsNorm("final_norm", s, replicated("final_norm", s.chip, wdt, Shape.of(1, d), TensorRole.WEIGHT));
        String logits = matmul("logits", s, y, replicated("head", s.chip, wdt, Shape.of(d, spec.vocab()), TensorRole.WEIGHT));
        b.storeAll("logits", logits, b.tensor("logits", DType.F32, Shape.of(outRows, spec.vocab()), 0, TensorRole.OUTPUT));
        String best = b.reduce("argmax", ReduceFn.ARGMAX, 1, logits);
        String flat = b.reshape("next_token", best, Shape.of(outRows));
        b.storeAll("next_token", flat, b.tensor("next_token", DType.I32, Shape.of(outRows), 0, TensorRole.OUTPUT));
    }

    // ------------------------------------------------------------------ pieces of the math

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

    /**
     * Grouped-query attention on this chip's {@code heads} query heads over its {@code kvHeads}
     * KV heads: writes this step's k/v rows into the cache, reads the cache back, and for each
     * head computes {@code softmax(mask(q k^T / sqrt(headDim))) v}. Keys after a row's own
     * position are masked to -inf, and value rows past the step's last position are zeroed
     * ({@link #validValues}), so cache rows not yet written never contribute, whatever they hold.
     */
    private String attention(ChipState s, int l, String q, String k, String v, int heads, int kvHeads) {
        int group = heads / kvHeads;
        double scale = 1.0 / Math.sqrt(spec.headDim());
        Shape cache = Shape.of(plan.cacheRows(), kvHeads * spec.headDim());
        return switch (plan.mode()) {
            // no history: the only key is this token's own
            case FORWARD -> attendRows("attn.l" + l, q, k, v, heads, group, scale, null, null);
            case DECODE, PREFILL -> attendSequence(s, l, q, k, v, heads, group, scale, cache);
            case BATCH -> attendBatch(s, l, q, k, v, heads, group, scale, cache);
        };
    }

    /** One sequence: write k/v at rows [pos, pos+rows), read the cache back, row i sees keys j <= pos + i. */
    private String attendSequence(ChipState s, int l, String q, String k, String v, int heads, int group,
                                  double scale, Shape cache) {
        int width = cache.dim(1);
        String kc = columnShardState("kv_k.l" + l, s.chip, cache, width);
        String vc = columnShardState("kv_v.l" + l, s.chip, cache, width);
        List<Offset> at = List.of(Offset.param("pos", 1, 0), Offset.constant(0));
        b.storeBlock("k.l" + l, k, kc, at);
        b.storeBlock("v.l" + l, v, vc, at);
        String keys = b.loadAll("keys.l" + l, s.home, kc);
        // rows [pos, pos + rows) were just written; rows past them are unused, whatever they hold
        Expr written = Expr.apply(Fn.LT, new Expr.Index(0),
                Expr.apply(Fn.ADD, new Expr.ParamRef("pos"), Expr.i(plan.rows())));
        String values = validValues("values.l" + l, s.home, vc, written, null,
                List.of(Offset.constant(0), Offset.constant(0)), cache);
        Expr visible = Expr.apply(Fn.LE, new Expr.Index(1),
                Expr.apply(Fn.ADD, new Expr.ParamRef("pos"), new Expr.Index(0)));
        return attendRows("attn.l" + l, q, keys, values, heads, group, scale, visible, null);
    }

    /**
     * Independent sequences: row r's cache is rows [r*ctx, (r+1)*ctx) of the stacked cache, its
     * write row {@code r*ctx + pos_r} computed by a Scalar stage into a one-element buffer used as
     * an offset; row r sees keys j <= pos_r.
     */
    private String attendBatch(ChipState s, int l, String q, String k, String v, int heads, int group,
                               double scale, Shape cache) {
        int ctx = plan.ctx();
        int rows = plan.rows();
        int width = cache.dim(1);
        String kc = columnShardState("kv_k.l" + l, s.chip, cache, width);
        String vc = columnShardState("kv_v.l" + l, s.chip, cache, width);
        for (int r = 0; r < rows; r++) {
            String cacheRow = b.scalar("cache_row.l" + l + ".r" + r,
                    Expr.apply(Fn.ADD, Expr.in(0), Expr.i(r * ctx)), s.rowPos.get(r));
            List<Offset> at = List.of(new Offset(0, List.of(new Offset.Term.OfBuffer(1, cacheRow))), Offset.constant(0));
            b.storeBlock("k.l" + l + ".r" + r, b.slice("k.l" + l + ".r" + r, k, List.of(r, 0), Shape.of(1, width)), kc, at);
            b.storeBlock("v.l" + l + ".r" + r, b.slice("v.l" + l + ".r" + r, v, List.of(r, 0), Shape.of(1, width)), vc, at);
        }
        List<String> outs = new ArrayList<>();
        for (int r = 0; r < rows; r++) {
            List<Offset> base = List.of(Offset.constant((long) r * ctx), Offset.constant(0));
            String keys = b.loadBlock("keys.l" + l + ".r" + r, s.home, kc, base, Shape.of(ctx, width));
            Expr written = Expr.apply(Fn.LE, new Expr.Index(0), Expr.in(1));
            String values = validValues("values.l" + l + ".r" + r, s.home, vc, written, s.rowPos.get(r), base,
                    Shape.of(ctx, width));
            String qr = b.slice("q.l" + l + ".r" + r, q, List.of(r, 0), Shape.of(1, heads * spec.headDim()));
            Expr visible = Expr.apply(Fn.LE, new Expr.Index(1), Expr.in(1));
            outs.add(attendRows("attn.l" + l + ".r" + r, qr, keys, values, heads, group, scale, visible, s.rowPos.get(r)));
        }
        return b.concat("attn.l" + l, 0, outs);
    }

    /**
     * Loads {@code shape} rows of value cache {@code cache} at {@code origin} and replaces every row
     * where {@code written} fails by zeros ({@code select(written, v, 0)}; in1, when given, is
     * {@code rowInput}). A masked key gets probability exactly 0, but {@code 0 * v} is NaN when an
     * unused row holds NaN or an infinity (backends allocate caches uninitialised and read only
     * the valid rows), so the unused value rows are zeroed too: then the result does not depend
     * on them at all. Where they hold finite values the result is unchanged: the product-value
     * matmul adds {@code 0 * 0} where it added {@code 0 * v}, a zero either way. (Keys need no
     * such step: the score mask selects -inf over whatever the product was.)
     */
    private String validValues(String hint, Site home, String cache, Expr written, String rowInput,
                               List<Offset> origin, Shape shape) {
        String raw = b.loadBlock(hint + ".raw", home, cache, origin, shape);
        Expr masked = Expr.apply(Fn.SELECT, written, Expr.in(0), Expr.f(0.0));
        return rowInput == null
                ? b.generic(hint, masked, DType.F32, shape, raw)
                : b.generic(hint, masked, DType.F32, shape, raw, rowInput);
    }

    /**
     * Per head h (kv head h / group): scores {@code q_h k_g^T}, scaled and masked where
     * {@code visible} fails (in1, when given, is {@code maskInput}), softmax along the keys as
     * exp(s - max) / sum, then times {@code v_g}. Heads are concatenated along the columns.
     */
    private String attendRows(String hint, String q, String keys, String values, int heads, int group,
                              double scale, Expr visible, String maskInput) {
        int dh = spec.headDim();
        int rows = b.shape(q).dim(0);
        int nKeys = b.shape(keys).dim(0);
        Map<Integer, String[]> kv = new HashMap<>();
        List<String> outs = new ArrayList<>();
        for (int h = 0; h < heads; h++) {
            int g = h / group;
            String[] kvg = kv.computeIfAbsent(g, gg -> new String[] {
                    b.slice(hint + ".k" + gg, keys, List.of(0, gg * dh), Shape.of(nKeys, dh)),
                    b.slice(hint + ".v" + gg, values, List.of(0, gg * dh), Shape.of(nKeys, dh))});
            String qh = b.slice(hint + ".q" + h, q, List.of(0, h * dh), Shape.of(rows, dh));
            String raw = b.matmul(hint + ".qk" + h, qh, kvg[0], true);
            Expr scaled = Expr.apply(Fn.MUL, Expr.in(0), Expr.f(scale));
            String scores;
            if (visible == null) {
                scores = b.generic(hint + ".s" + h, scaled, DType.F32, b.shape(raw), raw);
            } else {
                Expr masked = Expr.apply(Fn.SELECT, visible, scaled, Expr.f(Double.NEGATIVE_INFINITY));
                scores = maskInput == null
                        ? b.generic(hint + ".s" + h, masked, DType.F32, b.shape(raw), raw)
                        : b.generic(hint + ".s" + h, masked, DType.F32, b.shape(raw), raw, maskInput);
            }
            String max = b.reduce(hint + ".max" + h, ReduceFn.MAX, 1, scores);
            String e = b.generic(hint + ".exp" + h, Expr.apply(Fn.EXP, Expr.apply(Fn.SUB, Expr.in(0), Expr.in(1))),
                    DType.F32, b.shape(scores), scores, max);
            String sum = b.reduce(hint + ".sum" + h, ReduceFn.SUM, 1, e);
            String p = b.generic(hint + ".p" + h, Expr.apply(Fn.DIV, Expr.in(0), Expr.in(1)), DType.F32,
                    b.shape(e), e, sum);
            outs.add(b.matmul(hint + ".pv" + h, p, kvg[1], false));
        }
        return b.concat(hint, 1, outs);
    }

    /**
     * {@code x} (on core (0,0)) times weight tensor {@code weight} ({@code [K, N]}), tiled by output
     * columns over T cores of the chip (T the largest divisor of N that fits the grid as a
     * rectangle of whole rows or part of the first row). With T = 1 it runs on core (0,0). Else
     * x is stored to a scratch tensor and multicast from (0,0) over the rectangle; core t loads
     * columns {@code [t*N/T, (t+1)*N/T)} of the weight, multiplies, and stores its tile into a
     * scratch {@code [rows, N]}, which core (0,0) loads back whole. The product of a row shard
     * (a partial, split programs only) is computed on (0,0) whole: see docs/author.md, "Split".
     */
    private String matmul(String hint, ChipState s, String x, String weight) {
        Shape ws = b.tensorDecl(weight).shape();
        int kDim = ws.dim(0);
        int n = ws.dim(1);
        // A row shard's product is a partial; a certificate can declare only weight-shaped
        // tensors partial, so a partial never goes through a scratch tensor: it stays on (0,0).
        int tiles = isRowShard(weight) ? 1 : tiles(n);
        if (tiles == 1) {
            String w = b.loadAll(hint + ".w", s.home, weight);
            return b.matmul(hint, x, w, false);
        }
        int rows = b.shape(x).dim(0);
        int tileN = n / tiles;
        Rect rect = new Rect(0, 0, Math.min(tiles, gridWidth), (tiles + gridWidth - 1) / gridWidth);
        Map<Site, String> spread = spreads.computeIfAbsent(x + "@" + tiles, key -> {
            String act = b.scratch(hint + ".act", DType.F32, b.shape(x), s.chip);
            b.storeAll(hint + ".act", x, act);
            return b.loadMulticast(hint + ".act", s.home, act, rect);
        });
        String out = b.scratch(hint + ".out", DType.F32, Shape.of(rows, n), s.chip);
        for (int t = 0; t < tiles; t++) {
            Site core = new Site(s.chip, t % gridWidth, t / gridWidth);
            String wt = b.loadBlock(hint + ".w" + t, core, weight,
                    List.of(Offset.constant(0), Offset.constant((long) t * tileN)), Shape.of(kDim, tileN));
            String yt = b.matmul(hint + ".t" + t, spread.get(core), wt, false);
            b.storeBlock(hint + ".t" + t, yt, out, List.of(Offset.constant(0), Offset.constant((long) t * tileN)));
        }
        return b.loadAll(hint, s.home, out);
    }

    private boolean isRowShard(String weight) {
        return shards.stream().anyMatch(d -> d.tensor().equals(weight) && d.axis() == 0 && d.end() - d.start() != d.extent());
    }

    /** Column tiles for an output of width n: the largest divisor of n that forms a rectangle of cores. */
    private int tiles(int n) {
        int cores = gridWidth * gridHeight;
        for (int t = Math.min(cores, n); t > 1; t--) {
            if (n % t == 0 && (t <= gridWidth || t % gridWidth == 0)) {
                return t;
            }
        }
        return 1;
    }

    // ------------------------------------------------------------------ bound tensors

    /** A tensor every chip holds whole: its logical name on chip 0, {@code name.c<k>} on chip k. */
    private String replicated(String logical, int chip, DType dtype, Shape shape, TensorRole role) {
        String name = chip == 0 ? logical : logical + ".c" + chip;
        if (b.tensorDecl(name) == null) {
            b.tensor(name, dtype, shape, chip, role);
            bindings.put(name, Binding.whole(logical));
            if (tp > 1 && shape.rank() > 0 && shape.dim(0) > 0) {
                // split: the certificate says every chip's copy is the whole logical tensor
                shards.add(new ShardDecl(name, logical, 0, 0, shape.dim(0), shape.dim(0)));
            }
        }
        return name;
    }

    /** Columns {@code [chip*width, (chip+1)*width)} of weight {@code logical} ({@code [k, n]}). */
    private String columnShard(String logical, int chip, int k, int n, int width) {
        if (tp == 1) {
            return replicated(logical, chip, wdt, Shape.of(k, n), TensorRole.WEIGHT);
        }
        String name = logical + ".c" + chip;
        if (b.tensorDecl(name) == null) {
            b.tensor(name, wdt, Shape.of(k, width), chip, TensorRole.WEIGHT);
            bindings.put(name, new Binding(logical, 1, chip * width, (chip + 1) * width));
            shards.add(new ShardDecl(name, logical, 1, (long) chip * width, (long) (chip + 1) * width, (long) width * tp));
        }
        return name;
    }

    /** A KV cache state tensor, sharded by columns (this chip's KV heads) when split. */
    private String columnShardState(String logical, int chip, Shape shape, int width) {
        if (tp == 1) {
            return replicated(logical, chip, DType.F32, shape, TensorRole.STATE);
        }
        String name = logical + ".c" + chip;
        if (b.tensorDecl(name) == null) {
            b.tensor(name, DType.F32, shape, chip, TensorRole.STATE);
            bindings.put(name, new Binding(logical, 1, chip * width, (chip + 1) * width));
            shards.add(new ShardDecl(name, logical, 1, (long) chip * width, (long) (chip + 1) * width, (long) width * tp));
        }
        return name;
    }

    /**
     * Rows {@code [chip*height, (chip+1)*height)} of weight {@code logical} ({@code [k, n]}), its
     * contraction axis: the product is a partial, declared in the certificate as a shard.
     */
    private String rowShard(String logical, int chip, int k, int n, int height) {
        if (tp == 1) {
            return replicated(logical, chip, wdt, Shape.of(k, n), TensorRole.WEIGHT);
        }
        String name = logical + ".c" + chip;
        if (b.tensorDecl(name) == null) {
            b.tensor(name, wdt, Shape.of(height, n), chip, TensorRole.WEIGHT);
            bindings.put(name, new Binding(logical, 0, chip * height, (chip + 1) * height));
            shards.add(new ShardDecl(name, logical, 0, (long) chip * height, (long) (chip + 1) * height, k));
        }
        return name;
    }
}
