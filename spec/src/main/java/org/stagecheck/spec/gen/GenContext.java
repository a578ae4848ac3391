package org.stagecheck.spec.gen;

import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.spec.ir.ValueType;

/**
 * What every fragment draws from: the random source, the program under construction, the machine
 * and the largest dimension, what may appear ({@link GenSpace}), and the parameters. Parameter
 * {@code pos} (range {@code [0, posMax]}) drives the parameter-dependent offsets; {@code layer}
 * (range {@code [0, 3]}) appears only in expressions. With everything allowed a fragment makes the
 * same draws as it always did, so a seed of {@link RandomPrograms#generate} keeps its program.
 */
final class GenContext {
    static final String POS = "pos";
    static final String LAYER = "layer";
    static final List<String> PARAMS = List.of(POS, LAYER);

    final RandomGenerator rnd;
    final ProgramBuilder b;
    final int chips;
    final int width;
    final int height;
    final int maxDim;
    final GenSpace space;
    final int posMax;
    private final DType[] floats;

    GenContext(RandomGenerator rnd, ProgramBuilder b, GenSpace space, int maxDim, int posMax) {
        this.rnd = rnd;
        this.b = b;
        this.chips = b.machine().chips();
        this.width = b.machine().width();
        this.height = b.machine().height();
        this.maxDim = maxDim;
        this.space = space;
        this.posMax = posMax;
        this.floats = space.floats().toArray(DType[]::new);
    }

    boolean allows(KindName kind) {
        return space.kinds().contains(kind);
    }

    boolean allows(DType dtype) {
        return space.dtypes().contains(dtype);
    }

    /** Random expressions over inputs of {@code types} whose casts stay inside the allowed dtypes. */
    TypedExprs exprs(List<ValueType> types, int indexRank) {
        return new TypedExprs(rnd, types, PARAMS, indexRank, floats, allows(DType.I32));
    }

    /** A dimension in {@code [1, maxDim]}. */
    int dim() {
        return rnd.nextInt(1, maxDim + 1);
    }

    /** A dimension in {@code [1, min(limit, maxDim)]}. */
    int dim(int limit) {
        return rnd.nextInt(1, Math.min(limit, maxDim) + 1);
    }

    /** An allowed floating dtype (all five, in {@link DType} order, when everything is allowed). */
    DType floatType() {
        return floats[rnd.nextInt(floats.length)];
    }

    /** An allowed dtype: i32 one time in four when allowed, else a floating one. */
    DType anyType() {
        return rnd.nextInt(4) == 0 && allows(DType.I32) ? DType.I32 : floatType();
    }

    Site site() {
        return site(rnd.nextInt(chips));
    }

    Site site(int chip) {
        return new Site(chip, rnd.nextInt(width), rnd.nextInt(height));
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
