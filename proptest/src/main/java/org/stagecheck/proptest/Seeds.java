package org.stagecheck.proptest;

import java.util.SplittableRandom;
import java.util.stream.LongStream;

/**
 * The seeds a property is tried on. By default the i-th seed of every property is the i-th value
 * of {@code new SplittableRandom(base)}, base 0: the same seeds on every run and machine, so a CI
 * failure is a local failure too. Two system properties (Maven passes {@code -D} options on to
 * the test JVM) change that:
 *
 * <ul>
 *   <li>{@code -Dstagecheck.seed=S} runs exactly one try, seed S: the replay of a failure, which
 *       names its seed ({@link SeedReport});</li>
 *   <li>{@code -Dstagecheck.seedBase=B} draws the seeds from base B instead of 0, to explore
 *       other tries (a nightly job may pass the date).</li>
 * </ul>
 */
public final class Seeds {
    /** The system property naming the one seed to replay. */
    public static final String REPLAY = "stagecheck.seed";
    /** The system property choosing another sequence of seeds. */
    public static final String BASE = "stagecheck.seedBase";

    private Seeds() {}

    /** {@code tries} seeds, or only the replayed one when {@value #REPLAY} is set. */
    public static LongStream of(int tries) {
        String replay = System.getProperty(REPLAY);
        if (replay != null && !replay.isBlank()) {
            return LongStream.of(parse(REPLAY, replay));
        }
        String base = System.getProperty(BASE);
        long b = base == null || base.isBlank() ? 0L : parse(BASE, base);
        return sequence(b, tries);
    }

    /** The first {@code tries} values of {@code new SplittableRandom(base)}. */
    public static LongStream sequence(long base, int tries) {
        SplittableRandom r = new SplittableRandom(base);
        return LongStream.generate(r::nextLong).limit(tries);
    }

    private static long parse(String property, String value) {
        try {
            return Long.parseLong(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("-D" + property + " must be a 64-bit integer, not '" + value + "'", e);
        }
    }
}
