package org.stagecheck.spec.gen;

import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.cert.Obligation;
import org.stagecheck.spec.ir.Machine;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;

/**
 * A seeded generator of well-formed stage programs, for property tests of compiler passes (brief,
 * use case 2: generate, apply the pass, check the laws).
 *
 * <p>A program is one round of every {@link Fragment}, in a fixed order, followed by fragments
 * drawn at random until the stage count reaches {@link GenOptions#stages()}. So every program holds
 * all six stage kinds, all three access patterns and all seven compute ops. Each fragment reads
 * fresh tensors and writes fresh buffers, so by construction: shapes agree, every buffer is written
 * before it is read, every block lies inside its tensor for every parameter value in range, the
 * buffers a stage names live on its core, and tensors are on the chip of the stages that use them.
 * What only data can decide (an index buffer's values inside its table) is left to the data: index
 * buffers are loaded from i32 input tensors.
 *
 * <p>Deterministic: the same seed and options give an equal program on every run and JVM
 * ({@link SplittableRandom}'s sequence is specified). Linear time in the stage count.
 */
public final class RandomPrograms {
    /** Claims a generated certificate makes: true by construction. */
    private static final List<Obligation> CLAIMS = List.of(Obligation.WELL_FORMED, Obligation.UNREDUCED_SHARD, Obligation.MULTICAST);

    private RandomPrograms() {}

    /** The program generated for {@code seed} under {@code options}. */
    public static Program generate(long seed, GenOptions options) {
        return generateWithCertificate(seed, options).program();
    }

    /** The program generated for {@code seed} and its certificate (the shards behind every AllReduce). */
    public static Generated generateWithCertificate(long seed, GenOptions options) {
        SplittableRandom rnd = new SplittableRandom(seed);
        ProgramBuilder b = new ProgramBuilder(new Machine(options.chips(), options.width(), options.height()));
        int posMax = rnd.nextInt(options.maxDim());
        b.param(new Param(GenContext.POS, 0, posMax));
        b.param(new Param(GenContext.LAYER, 0, 3));
        if (options.chips() < 2) {
            throw new IllegalArgumentException("a generated program has an AllReduce across chips: it needs at least 2 chips, not " + options.chips());
        }
        GenContext g = new GenContext(rnd, b, GenSpace.everything(), options.maxDim(), posMax);
        for (Fragment f : Fragment.values()) {
            f.emit(g);
        }
        Fragment[] all = Fragment.values();
        while (b.stageCount() < options.stages()) {
            all[rnd.nextInt(all.length)].emit(g);
        }
        Program p = b.build("random-" + Long.toHexString(seed));
        return new Generated(p, new Certificate(b.shards(), null, CLAIMS));
    }

    /**
     * A program inside {@code space}, everything drawn from {@code rnd} (so any engine that supplies
     * a {@link RandomGenerator} can drive it, and the same generator state gives an equal program):
     * the machine ({@code minChips..maxChips} chips, at least 2 when the range allows an all-reduce;
     * a grid of up to {@code maxGrid} cores a side), a stage count to reach in {@code
     * minStages..maxStages}, the largest dimension in {@code 2..maxDim}. Then one round of every
     * fragment the space allows (every allowed kind is met when it fits), and fragments drawn at
     * random until the count is reached. A fragment that would pass {@code maxStages} is taken
     * back, so the count never exceeds it; it stays under {@code minStages} only when no allowed
     * fragment fits in the room left. The certificate holds the shards of every split.
     */
    public static Generated draw(RandomGenerator rnd, GenSpace space) {
        int chips = space.maxChips() >= 2 ? rnd.nextInt(Math.max(space.minChips(), 2), space.maxChips() + 1) : 1;
        int width = rnd.nextInt(1, space.maxGrid() + 1);
        int height = rnd.nextInt(Math.min(2, space.maxGrid()), space.maxGrid() + 1);
        int target = rnd.nextInt(space.minStages(), space.maxStages() + 1);
        int maxDim = rnd.nextInt(2, space.maxDim() + 1);
        long id = rnd.nextLong();
        ProgramBuilder b = new ProgramBuilder(new Machine(chips, width, height));
        int posMax = rnd.nextInt(maxDim);
        b.param(new Param(GenContext.POS, 0, posMax));
        b.param(new Param(GenContext.LAYER, 0, 3));
        GenContext g = new GenContext(rnd, b, space, maxDim, posMax);
        List<Fragment> fits = Arrays.stream(Fragment.values()).filter(f -> f.fits(g)).toList();
        for (Fragment f : fits) {
            emitWithin(g, f, space.maxStages());
        }
        int misses = 0;
        while (b.stageCount() < target && misses < MISSES) {
            misses = emitWithin(g, fits.get(rnd.nextInt(fits.size())), space.maxStages()) ? 0 : misses + 1;
        }
        Program p = b.build("random-" + Long.toHexString(id));
        return new Generated(p, new Certificate(b.shards(), null, CLAIMS));
    }

    /** Fragments in a row that may not fit under the stage bound before {@link #draw} stops short of its count. */
    private static final int MISSES = 16;

    private static boolean emitWithin(GenContext g, Fragment f, int maxStages) {
        ProgramBuilder.Mark m = g.b.mark();
        f.emit(g);
        if (g.b.stageCount() > maxStages) {
            g.b.rollback(m);
            return false;
        }
        return true;
    }
}
