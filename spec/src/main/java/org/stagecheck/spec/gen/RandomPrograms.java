package org.stagecheck.spec.gen;

import java.util.List;
import java.util.SplittableRandom;
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
        GenContext g = new GenContext(rnd, b, options, posMax);
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
}
