package org.stagecheck.spec.gen;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import org.stagecheck.spec.ir.Program;

/**
 * jqwik wrappers over {@link RandomPrograms} (jqwik is test-scope, so these live in test sources).
 * A program is a function of its seed and options, so shrinking shrinks the seed and the sizes
 * toward the smallest program that still fails.
 */
public final class ProgramArbitraries {
    private ProgramArbitraries() {}

    /** Options for small machines: 2-4 chips of up to 3x3 cores, up to 80 stages, dimensions up to 6. */
    public static Arbitrary<GenOptions> smallOptions() {
        return Combinators.combine(
                Arbitraries.integers().between(2, 4),
                Arbitraries.integers().between(1, 3),
                Arbitraries.integers().between(2, 3),
                Arbitraries.integers().between(0, 80),
                Arbitraries.integers().between(2, 6)).as(GenOptions::new);
    }

    public static Arbitrary<Generated> generated() {
        return Combinators.combine(Arbitraries.longs(), smallOptions()).as(RandomPrograms::generateWithCertificate);
    }

    /** Well-formed programs holding all six stage kinds. */
    public static Arbitrary<Program> programs() {
        return generated().map(Generated::program);
    }
}
