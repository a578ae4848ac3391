package org.stagecheck.passcheck;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * A user's PassCheck test that fails: a renumbering that forgets a MatMul's spill. Its name matches
 * none of surefire's test patterns, and it runs only with {@code -Dstagecheck.plantedFailure=run},
 * so the build does not run it; {@link ReplayCommandTest} runs it, then runs the replay command its
 * failure prints.
 */
@EnabledIfSystemProperty(named = PlantedFailure.ENABLE, matches = "run")
class PlantedFailure {
    static final String ENABLE = "stagecheck.plantedFailure";

    @Test
    void aRenumberingThatForgetsTheSpill() {
        PassCheck.of("planted: remap forgets the spill", (p, c) -> GalleryPasses.renumber(p, c, false)).check();
    }
}
