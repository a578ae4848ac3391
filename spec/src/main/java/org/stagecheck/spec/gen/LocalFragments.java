package org.stagecheck.spec.gen;

import java.util.ArrayList;
import java.util.List;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.ScalarBody;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.spec.ir.ValueType;

/**
 * Fragments that run on one core: each loads fresh tensors, computes, and stores, so every
 * buffer is written before it is read and every block stays inside its tensor for every value of
 * {@code pos} in its range.
 */
final class LocalFragments {
    private LocalFragments() {}

    /** A KV-cache row: Load a block at row {@code pos + c} of a state tensor, a Generic (when allowed), Store it back there. */
    static void kvCacheRow(GenContext g) {
        Site site = g.site();
        int c = g.rnd.nextInt(3);
        int rows = g.posMax + 1 + c + g.rnd.nextInt(3);
        int d = g.dim();
        DType dt = g.floatType();
        Shape row = Shape.of(1, d);
        String cache = g.b.tensor("cache", dt, Shape.of(rows, d), site.chip(), TensorRole.STATE);
        List<Offset> origin = List.of(Offset.param(GenContext.POS, 1, c), Offset.constant(0));
        String r = g.b.buffer("row", dt, row, site);
        g.b.stage(site, List.of(), List.of(r), new StageKind.Load(cache, new AccessPattern.Block(origin, row), 1, null));
        String out = r;
        if (g.allows(KindName.GENERIC)) {
            out = g.b.buffer("upd", dt, row, site);
            Expr e = g.exprs(List.of(ValueType.FLOAT), 2).usingAllInputs(ValueType.FLOAT, 3);
            g.b.stage(site, List.of(r), List.of(out), new StageKind.Compute(new ComputeOp.Generic(e)));
        }
        g.b.stage(site, List.of(out), List.of(), new StageKind.Store(cache, new AccessPattern.Block(origin, row), 1, g.divisor(d)));
    }

    /**
     * A contraction streamed over 1 or 2 chunks into an f32 spill buffer (zeroed by a Generic
     * first), with optional transposes and a bias on the last chunk; A and B are streamed loads,
     * contiguous or interleaved (stride = chunks x block). Without Generic stages or f32, one chunk
     * and no spill.
     */
    static void streamedMatMul(GenContext g) {
        Site site = g.site();
        boolean spilled = g.allows(KindName.GENERIC) && g.allows(DType.F32);
        int chunks = g.rnd.nextInt(1, 3);
        if (!spilled) {
            chunks = 1;
        }
        int kb = g.dim(4);
        int nb = g.rnd.nextInt(1, 3);
        int kc = kb * nb;
        int k = chunks * kc;
        int m = g.dim();
        int n = g.dim();
        boolean ta = g.rnd.nextBoolean();
        boolean tb = g.rnd.nextBoolean();
        boolean interleaved = g.rnd.nextBoolean();
        DType in = g.floatType();
        DType outType = g.floatType();
        String x = g.b.tensor("x", in, ta ? Shape.of(k, m) : Shape.of(m, k), site.chip(), TensorRole.INPUT);
        String w = g.b.tensor("w", in, tb ? Shape.of(n, k) : Shape.of(k, n), site.chip(), TensorRole.WEIGHT);
        String spill = null;
        if (spilled) {
            spill = g.b.buffer("spill", DType.F32, Shape.of(m, n), site);
            g.b.stage(site, List.of(), List.of(spill), new StageKind.Compute(new ComputeOp.Generic(Expr.f(0.0))));
        }
        DType biasType = g.floatType();
        String bias = g.loadWhole("bias", biasType, Shape.of(1, n), site, TensorRole.WEIGHT);
        String out = g.b.buffer("mm", outType, Shape.of(m, n), site);
        for (int j = 0; j < chunks; j++) {
            long start = interleaved ? (long) j * kb : (long) j * kc;
            long stride = interleaved ? (long) chunks * kb : kb;
            String a = streamAlongK(g, x, in, ta ? 0 : 1, m, kb, nb, start, stride, site, "a");
            String bb = streamAlongK(g, w, in, tb ? 1 : 0, n, kb, nb, start, stride, site, "b");
            boolean last = j == chunks - 1;
            g.b.stage(site, List.of(a, bb), List.of(out),
                    new StageKind.Compute(new ComputeOp.MatMul(ta, tb, last ? bias : null, spill)));
        }
        g.storeWhole("y", out, outType, Shape.of(m, n), site, TensorRole.OUTPUT);
    }

    /** Streams {@code nb} blocks of {@code kb} along axis {@code kAxis} of a rank-2 tensor whose other axis is {@code other}. */
    private static String streamAlongK(GenContext g, String tensor, DType dt, int kAxis, int other, int kb, int nb,
                                       long start, long stride, Site site, String what) {
        Shape block = kAxis == 0 ? Shape.of(kb, other) : Shape.of(other, kb);
        List<Offset> origin = kAxis == 0
                ? List.of(Offset.constant(start), Offset.constant(0))
                : List.of(Offset.constant(0), Offset.constant(start));
        String buf = g.b.buffer(what, dt, block.withDim(kAxis, kb * nb), site);
        g.b.stage(site, List.of(), List.of(buf),
                new StageKind.Load(tensor, new AccessPattern.Streamed(origin, block, kAxis, stride), nb, null));
        return buf;
    }

    /**
     * An embedding-style gather: an i32 index buffer loaded from an input tensor selects rows of a
     * table, whose columns start at {@code pos + c}; then a Reduce along a random axis (when allowed), stored.
     */
    static void indirectGather(GenContext g) {
        Site site = g.site();
        int n = g.dim();
        int vocab = g.dim();
        int w = g.dim();
        int c = g.rnd.nextInt(3);
        int cols = g.posMax + c + w + g.rnd.nextInt(3);
        DType dt = g.floatType();
        String idx = g.loadWhole("idx", DType.I32, Shape.of(n), site, TensorRole.INPUT);
        String table = g.b.tensor("table", dt, Shape.of(vocab, cols), site.chip(), TensorRole.WEIGHT);
        String rows = g.b.buffer("rows", dt, Shape.of(n, w), site);
        g.b.stage(site, List.of(), List.of(rows), new StageKind.Load(table,
                new AccessPattern.Indirect(idx, List.of(Offset.param(GenContext.POS, 1, c)), Shape.of(w)), 1, null));
        if (!g.allows(KindName.REDUCE)) {
            g.storeWhole("rows", rows, dt, Shape.of(n, w), site, TensorRole.OUTPUT);
            return;
        }
        ReduceFn fn = ReduceFn.values()[g.rnd.nextInt(ReduceFn.values().length)];
        int axis = g.rnd.nextInt(2);
        Shape reduced = Shape.of(n, w).withDim(axis, 1);
        DType redType = fn == ReduceFn.ARGMAX ? DType.I32 : dt;
        String red = g.b.buffer("red", redType, reduced, site);
        g.b.stage(site, List.of(rows), List.of(red), new StageKind.Compute(new ComputeOp.Reduce(fn, axis)));
        g.storeWhole("red", red, redType, reduced, site, TensorRole.OUTPUT);
    }

    /** Two constant-offset blocks, concatenated, transposed, sliced, reshaped to one row, stored to scratch; each op only when allowed. */
    static void layout(GenContext g) {
        Site site = g.site();
        int axis = g.rnd.nextInt(2);
        int p = g.dim();
        int q1 = g.dim();
        int q2 = g.dim();
        int extra = g.rnd.nextInt(3);
        DType dt = g.anyType();
        Shape tensorShape = axis == 0 ? Shape.of(q1 + q2 + extra, p) : Shape.of(p, q1 + q2 + extra);
        String t = g.b.tensor("src", dt, tensorShape, site.chip(), TensorRole.INPUT);
        String cur = loadBlock(g, t, dt, axis, 0, q1, p, site);
        Shape curShape = axis == 0 ? Shape.of(q1, p) : Shape.of(p, q1);
        if (g.allows(KindName.CONCAT)) {
            String second = loadBlock(g, t, dt, axis, q1, q2, p, site);
            curShape = axis == 0 ? Shape.of(q1 + q2, p) : Shape.of(p, q1 + q2);
            String cat = g.b.buffer("cat", dt, curShape, site);
            g.b.stage(site, List.of(cur, second), List.of(cat), new StageKind.Compute(new ComputeOp.Concat(axis)));
            cur = cat;
        }
        if (g.allows(KindName.TRANSPOSE)) {
            curShape = Shape.of(curShape.dim(1), curShape.dim(0));
            String tr = g.b.buffer("tr", dt, curShape, site);
            g.b.stage(site, List.of(cur), List.of(tr), new StageKind.Compute(new ComputeOp.Transpose(List.of(1, 0))));
            cur = tr;
        }
        if (g.allows(KindName.SLICE)) {
            int s0 = g.rnd.nextInt(curShape.dim(0));
            int s1 = g.rnd.nextInt(curShape.dim(1));
            curShape = Shape.of(g.rnd.nextInt(1, curShape.dim(0) - s0 + 1), g.rnd.nextInt(1, curShape.dim(1) - s1 + 1));
            String sl = g.b.buffer("slice", dt, curShape, site);
            g.b.stage(site, List.of(cur), List.of(sl), new StageKind.Compute(new ComputeOp.Slice(List.of(s0, s1))));
            cur = sl;
        }
        if (g.allows(KindName.RESHAPE)) {
            curShape = Shape.of(1, curShape.dim(0) * curShape.dim(1));
            String rs = g.b.buffer("flat", dt, curShape, site);
            g.b.stage(site, List.of(cur), List.of(rs), new StageKind.Compute(new ComputeOp.Reshape()));
            cur = rs;
        }
        g.storeWhole("flat", cur, dt, curShape, site, TensorRole.SCRATCH);
    }

    private static String loadBlock(GenContext g, String tensor, DType dt, int axis, int start, int len, int other, Site site) {
        Shape block = axis == 0 ? Shape.of(len, other) : Shape.of(other, len);
        List<Offset> origin = axis == 0
                ? List.of(Offset.constant(start), Offset.constant(0))
                : List.of(Offset.constant(0), Offset.constant(start));
        String buf = g.b.buffer("part", dt, block, site);
        g.b.stage(site, List.of(), List.of(buf), new StageKind.Load(tensor, new AccessPattern.Block(origin, block), 1, null));
        return buf;
    }

    /**
     * Scalar stages compute a row number from {@code pos} and clamp it into the tensor, and a Load
     * reads the row at that offset buffer ({@code "@row"}); the row is transformed and stored.
     */
    static void scalarOffsetLoad(GenContext g) {
        Site site = g.site();
        int rows = g.dim();
        int d = g.dim();
        DType dt = g.floatType();
        Shape one = Shape.of(1);
        String raw = g.b.buffer("rawrow", DType.I32, one, site);
        g.b.stage(site, List.of(), List.of(raw), new StageKind.Scalar(new ScalarBody(List.of(
                Expr.apply(Fn.ADD, new Expr.ParamRef(GenContext.POS), Expr.i(g.rnd.nextInt(-3, 4)))))));
        String row = g.b.buffer("rowidx", DType.I32, one, site);
        g.b.stage(site, List.of(raw), List.of(row), new StageKind.Scalar(new ScalarBody(List.of(
                Expr.apply(Fn.MIN, Expr.apply(Fn.MAX, Expr.in(0), Expr.i(0)), Expr.i(rows - 1))))));
        String t = g.b.tensor("rows", dt, Shape.of(rows, d), site.chip(), TensorRole.INPUT);
        Shape block = Shape.of(1, d);
        String buf = g.b.buffer("picked", dt, block, site);
        List<Offset> origin = List.of(new Offset(0, List.of(new Offset.Term.OfBuffer(1, row))), Offset.constant(0));
        g.b.stage(site, List.of(), List.of(buf), new StageKind.Load(t, new AccessPattern.Block(origin, block), 1, null));
        String out = buf;
        if (g.allows(KindName.GENERIC)) {
            out = g.b.buffer("scaled", dt, block, site);
            Expr e = g.exprs(List.of(ValueType.FLOAT), 2).usingAllInputs(ValueType.FLOAT, 2);
            g.b.stage(site, List.of(buf), List.of(out), new StageKind.Compute(new ComputeOp.Generic(e)));
        }
        g.storeWhole("picked", out, dt, block, site, TensorRole.OUTPUT);
    }

    /** A Generic over 1 to 3 inputs of mixed dtypes that broadcast (dimensions equal or 1) to the output. */
    static void elementwise(GenContext g) {
        Site site = g.site();
        int rank = g.rnd.nextInt(1, 4);
        int[] dims = new int[rank];
        for (int i = 0; i < rank; i++) {
            dims[i] = g.dim();
        }
        Shape outShape = Shape.of(dims);
        int nIn = g.rnd.nextInt(1, 4);
        List<String> ins = new ArrayList<>();
        List<ValueType> types = new ArrayList<>();
        for (int i = 0; i < nIn; i++) {
            int[] inDims = dims.clone();
            for (int a = 0; a < rank; a++) {
                if (g.rnd.nextInt(3) == 0) {
                    inDims[a] = 1;
                }
            }
            DType dt = g.anyType();
            ins.add(g.loadWhole("in", dt, Shape.of(inDims), site, TensorRole.INPUT));
            types.add(ValueType.of(dt));
        }
        DType outType = g.anyType();
        Expr e = g.exprs(types, rank).usingAllInputs(ValueType.of(outType), 4);
        String out = g.b.buffer("ew", outType, outShape, site);
        g.b.stage(site, ins, List.of(out), new StageKind.Compute(new ComputeOp.Generic(e)));
        g.storeWhole("ew", out, outType, outShape, site, TensorRole.OUTPUT);
    }
}
