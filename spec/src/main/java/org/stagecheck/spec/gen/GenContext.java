package org.stagecheck.spec.gen;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorRole;

/**
 * What every fragment draws from: the seeded random source, the program under construction, the
 * options, and the parameters. Parameter {@code pos} (range {@code [0, posMax]}) drives the
 * parameter-dependent offsets; {@code layer} (range {@code [0, 3]}) appears only in expressions.
 */
final class GenContext {
    static final String POS = "pos";
    static final String LAYER = "layer";
    static final List<String> PARAMS = List.of(POS, LAYER);
    private static final DType[] FLOATS = {DType.F32, DType.BF16, DType.F16, DType.E4M3, DType.E5M2};

    final SplittableRandom rnd;
    final ProgramBuilder b;
    final GenOptions o;
    final int posMax;

    GenContext(SplittableRandom rnd, ProgramBuilder b, GenOptions o, int posMax) {
        this.rnd = rnd;
        this.b = b;
        this.o = o;
        this.posMax = posMax;
    }

    /** A dimension in {@code [1, maxDim]}. */
    int dim() {
        return rnd.nextInt(1, o.maxDim() + 1);
    }

    /** A dimension in {@code [1, min(limit, maxDim)]}. */
    int dim(int limit) {
        return rnd.nextInt(1, Math.min(limit, o.maxDim()) + 1);
    }

    DType floatType() {
        return FLOATS[rnd.nextInt(FLOATS.length)];
    }

    DType anyType() {
        return rnd.nextInt(4) == 0 ? DType.I32 : floatType();
    }

    Site site() {
        return site(rnd.nextInt(o.chips()));
    }

    Site site(int chip) {
        return new Site(chip, rnd.nextInt(o.width()), rnd.nextInt(o.height()));
    }

    /** A random divisor of {@code n} (n >= 1), so that sub-blocks tile a block exactly. */
    int divisor(int n) {
        List<Integer> ds = new ArrayList<>();
        for (int d = 1; d <= n; d++) {
            if (n % d == 0) {
                ds.add(d);
            }
        }
        return ds.get(rnd.nextInt(ds.size()));
    }

    static List<Offset> zeros(int rank) {
        List<Offset> out = new ArrayList<>(rank);
        for (int i = 0; i < rank; i++) {
            out.add(Offset.constant(0));
        }
        return out;
    }

    /** Loads the whole of a fresh tensor of {@code shape} into a fresh buffer on {@code site}. */
    String loadWhole(String what, DType dtype, Shape shape, Site site, TensorRole role) {
        String t = b.tensor(what, dtype, shape, site.chip(), role);
        String buf = b.buffer(what, dtype, shape, site);
        b.stage(site, List.of(), List.of(buf), new StageKind.Load(t, new AccessPattern.Block(zeros(shape.rank()), shape), 1, null));
        return buf;
    }

    /** Stores {@code buffer} (of {@code shape}, rank >= 1) into a fresh tensor of that shape, with random tiling sub-blocks. */
    void storeWhole(String what, String buffer, DType dtype, Shape shape, Site site, TensorRole role) {
        String t = b.tensor(what, dtype, shape, site.chip(), role);
        int rows = shape.rank() >= 2 ? shape.dim(shape.rank() - 2) : 1;
        int cols = shape.dim(shape.rank() - 1);
        b.stage(site, List.of(buffer), List.of(), new StageKind.Store(t,
                new AccessPattern.Block(zeros(shape.rank()), shape), divisor(rows), divisor(cols)));
    }
}
