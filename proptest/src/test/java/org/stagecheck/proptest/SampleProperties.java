package org.stagecheck.proptest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Properties that {@link SeededPropertyTest} runs through the JUnit launcher to look at their
 * reports (the name does not end in "Test", so the build does not run them on their own).
 */
class SampleProperties {
    @SeededProperty(tries = 7)
    void holdsForEverySeed(long seed) {
        assertThat(seed).isEqualTo(seed);
    }

    /** Fails on exactly the seeds whose lowest bit is set. */
    @SeededProperty(tries = 20)
    void failsOnOddSeeds(long seed) {
        assertThat(seed & 1).as("lowest bit").isZero();
    }

    @SeededProperty(tries = 3)
    void throwsOnEverySeed(long seed) {
        throw new IllegalStateException("broken on " + seed);
    }

    @SeededProperty(tries = 4)
    void assumesNothingHolds(long seed) {
        assumeTrue(false, "not on this machine");
    }
}
