package org.stagecheck.spec.gen;

import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.stagecheck.spec.ir.Program;

/**
 * Generated programs for the spec's property tests, one per seed: the seed chooses the options
 * (small machines: 2-4 chips of up to 3x3 cores, up to 80 stages, dimensions up to 6) and the
 * generator's own seed, so every kind, pattern and op is met on varied machines.
 */
public final class SmallPrograms {
    private SmallPrograms() {}

    /** Options for a small machine, drawn from {@code r}. */
    public static GenOptions smallOptions(RandomGenerator r) {
        return new GenOptions(r.nextInt(2, 5), r.nextInt(1, 4), r.nextInt(2, 4), r.nextInt(0, 81), r.nextInt(2, 7));
    }

    /** The generated program of {@code seed}, with its certificate. */
    public static Generated generated(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        GenOptions options = smallOptions(r);
        return RandomPrograms.generateWithCertificate(r.nextLong(), options);
    }

    /** The generated program of {@code seed}: well formed, holding all six stage kinds. */
    public static Program program(long seed) {
        return generated(seed).program();
    }
}
