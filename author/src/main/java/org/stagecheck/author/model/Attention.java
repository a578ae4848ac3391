package org.stagecheck.author.model;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.stagecheck.author.Cut;
import org.stagecheck.author.build.ProgramBuilder;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;

/**
 * The cut writer's grouped-query attention, on core (0,0) of a chip: the KV cache write and
 * read-back of each kind of step, the masks, and per head {@code softmax(q k^T / sqrt(Dh)) v}
 * (docs/author.md, "The model").
 */
final class Attention {
    private final ProgramBuilder b;
    private final BoundTensors bound;
    private final CutPlan plan;
    private final int headDim;

    Attention(ProgramBuilder b, BoundTensors bound, CutPlan plan, int headDim) {
        this.b = b;
        this.bound = bound;
        this.plan = plan;
        this.headDim = headDim;
    }

    /**
     * Grouped-query attention on this chip's {@code heads} query heads over its {@code kvHeads}
     * KV heads: writes this step's k/v rows into the cache, reads the cache back, and for each
     * head computes {@code softmax(mask(q k^T / sqrt(headDim))) v}. Keys after a row's own
     * position are masked to -inf, and value rows past the step's last position are zeroed
     * ({@link #validValues}), so cache rows not yet written never contribute, whatever they hold.
     */
    String attend(ChipState s, int l, String q, String k, String v, int heads, int kvHeads) {
        int group = heads / kvHeads;
        double scale = 1.0 / Math.sqrt(headDim);
        Shape cache = Shape.of(plan.cacheRows(), kvHeads * headDim);
        return switch (plan.step()) {
            // no history: the only key is this token's own
            case Cut.Step.Forward _ -> attendRows("attn.l" + l, q, k, v, heads, group, scale, null, null);
            case Cut.Step.Decode _, Cut.Step.Prefill _ -> plan.ring()
                    ? attendRing(s, l, q, k, v, heads, group, scale, cache)
                    : attendSequence(s, l, q, k, v, heads, group, scale, cache);
            case Cut.Step.Batch _ -> attendBatch(s, l, q, k, v, heads, group, scale, cache);
        };
    }

    /** One sequence: write k/v at rows [pos, pos+rows), read the cache back, row i sees keys j <= pos + i. */
    private String attendSequence(ChipState s, int l, String q, String k, String v, int heads, int group,
                                  double scale, Shape cache) {
        int width = cache.dim(1);
        String kc = bound.columnShardState("kv_k.l" + l, s.chip, cache, width);
        String vc = bound.columnShardState("kv_v.l" + l, s.chip, cache, width);
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
     * One sequence whose cache is a ring of W = {@code plan.slots()} rows (a sliding window
     * smaller than the cut's positions): position p lives in slot {@code p mod W}, so the ring
     * always holds the last W positions, which are exactly the keys the window lets p see. Rows
     * are taken one at a time, each as a decode step: a Scalar stage computes the slot
     * {@code (pos + i) mod W}, row i's k and v are stored there, the ring is read back and row i
     * attends over its slots, slot j visible when it has been written ({@code j <= pos + i}; once
     * the positions have wrapped, every slot). Row by row, a prefill chunk longer than the window
     * overwrites slots in position order and each row sees the ring a decode step at its position
     * would see, so a prefill equals its decode steps bit for bit.
     */
    private String attendRing(ChipState s, int l, String q, String k, String v, int heads, int group,
                              double scale, Shape cache) {
        int width = cache.dim(1);
        int window = plan.slots();
        String kc = bound.columnShardState("kv_k.l" + l, s.chip, cache, width);
        String vc = bound.columnShardState("kv_v.l" + l, s.chip, cache, width);
        List<String> outs = new ArrayList<>();
        int rows = plan.rows();
        for (int i = 0; i < rows; i++) {
            String r = rows == 1 ? "" : ".r" + i;
            String slot = b.scalarAt("slot.l" + l + r, s.home, Expr.apply(Fn.REM,
                    Expr.apply(Fn.ADD, new Expr.ParamRef("pos"), Expr.i(i)), Expr.i(window)));
            List<Offset> at = List.of(new Offset(0, List.of(new Offset.Term.OfBuffer(1, slot))), Offset.constant(0));
            String ki = rows == 1 ? k : b.slice("k.l" + l + r, k, List.of(i, 0), Shape.of(1, width));
            String vi = rows == 1 ? v : b.slice("v.l" + l + r, v, List.of(i, 0), Shape.of(1, width));
            b.storeBlock("k.l" + l + r, ki, kc, at);
            b.storeBlock("v.l" + l + r, vi, vc, at);
            String keys = b.loadAll("keys.l" + l + r, s.home, kc);
            Expr written = Expr.apply(Fn.LE, new Expr.Index(0), Expr.apply(Fn.ADD, new Expr.ParamRef("pos"), Expr.i(i)));
            String values = validValues("values.l" + l + r, s.home, vc, written, null,
                    List.of(Offset.constant(0), Offset.constant(0)), cache);
            Expr visible = Expr.apply(Fn.LE, new Expr.Index(1), Expr.apply(Fn.ADD, new Expr.ParamRef("pos"), Expr.i(i)));
            String qi = rows == 1 ? q : b.slice("q.l" + l + r, q, List.of(i, 0), Shape.of(1, heads * headDim));
            outs.add(attendRows("attn.l" + l + r, qi, keys, values, heads, group, scale, visible, null));
        }
        return b.concat("attn.l" + l, 0, outs);
    }

    /**
     * Independent sequences: row r's cache is rows [r*S, (r+1)*S) of the stacked cache (S the
     * slots per sequence: ctx, or the window when the cache is a ring), its write row
     * {@code r*S + pos_r} (a ring: {@code r*S + pos_r mod S}) computed by a Scalar stage into a
     * one-element buffer used as an offset; row r sees slots j <= pos_r (a wrapped ring: all).
     */
    private String attendBatch(ChipState s, int l, String q, String k, String v, int heads, int group,
                               double scale, Shape cache) {
        int ctx = plan.slots();
        int rows = plan.rows();
        int width = cache.dim(1);
        String kc = bound.columnShardState("kv_k.l" + l, s.chip, cache, width);
        String vc = bound.columnShardState("kv_v.l" + l, s.chip, cache, width);
        for (int r = 0; r < rows; r++) {
            Expr slot = plan.ring() ? Expr.apply(Fn.REM, Expr.in(0), Expr.i(ctx)) : Expr.in(0);
            String cacheRow = b.scalar("cache_row.l" + l + ".r" + r,
                    Expr.apply(Fn.ADD, slot, Expr.i(r * ctx)), s.rowPos.get(r));
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
            String qr = b.slice("q.l" + l + ".r" + r, q, List.of(r, 0), Shape.of(1, heads * headDim));
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
        int dh = headDim;
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
}
