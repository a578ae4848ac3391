package org.stagecheck.passcheck;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.util.List;
import java.util.function.Function;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;

/**
 * The gallery: buggy passes, each caught by PassCheck within its default tries and shrunk to a
 * counter-example of a few stages that breaks the same law the same way; the correct passes hold.
 * Each report is printed: the sizes in the README come from these lines.
 */
class PassCheckGalleryTest {
    private static final Generators RANDOM = new Generators(GenConfig.randomOnly(), new Interpreter(RunOptions.defaults()));

    private static final Function<RandomGenerator, Generated> BIASED = r -> {
        Generated g = RANDOM.random(r);
        return Decorations.biasAfterAllReduce(g, r.nextLong());
    };

    private static final Function<RandomGenerator, Generated> CHAINED = r -> Decorations.transposeChains(RANDOM.random(r), r);

    private static final Function<RandomGenerator, Generated> NARROW = r -> Decorations.narrowGenericChains(RANDOM.random(r));

    private static final Function<RandomGenerator, Generated> RELOADS = r -> Decorations.loadBeforeRestore(RANDOM.random(r));

    private static PassCheckReport caught(PassCheckReport r, String law, int maxStages) {
        System.out.println(r.text());
        assertThat(r.passed()).as("the bug is caught").isFalse();
        PassCheckReport.Failure f = r.failure();
        assertThat(f.tryIndex()).isLessThan(PassCheck.DEFAULT_TRIES);
        assertThat(f.violation().law()).isEqualTo(law);
        assertThat(f.minimalViolation().signature()).isEqualTo(f.violation().signature());
        assertThat(f.after().stages()).as(r.text()).isLessThanOrEqualTo(maxStages).isLessThanOrEqualTo(f.before().stages());
        assertThat(f.minimal().resolve("program.json")).exists();
        assertThat(f.minimal().resolve("inputs.json")).exists();
        assertThat(f.replay()).contains("-Dtest='PassCheckGalleryTest#").endsWith("-Dstagecheck.seed=" + f.seed());
        return r;
    }

    @Test
    void aFusionThatDropsTheCastIsCaught() {
        caught(PassCheck.of("fusion drops the cast", Pass.of(p -> GalleryPasses.fuseGenerics(p, false))).generator(NARROW).run(),
                "same outputs", 6);
    }

    @Test
    void theFusionThatKeepsTheCastHolds() {
        PassCheckReport r = PassCheck.of("fusion keeps the cast", Pass.of(p -> GalleryPasses.fuseGenerics(p, true)))
                .laws(List.of(new Law.WellFormed(), new Law.CertificateVerifies(), Law.SameOutputs.bitExact(), new Law.Idempotent())).check();
        assertThat(r.tries()).isEqualTo(PassCheck.DEFAULT_TRIES);
        PassCheck.of("fusion keeps the cast, bf16 chains", Pass.of(p -> GalleryPasses.fuseGenerics(p, true))).generator(NARROW).check();
    }

    @Test
    void aSchedulerThatMovesAStoreAboveTheLoadReadingTheTensorIsCaught() {
        caught(PassCheck.of("scheduler ignores tensors", Pass.of(p -> GalleryPasses.hoistStores(p, false))).generator(RELOADS).run(),
                "same outputs", 8);
    }

    @Test
    void theSchedulerThatRespectsTensorsHolds() {
        PassCheck.of("scheduler respects tensors", Pass.of(p -> GalleryPasses.hoistStores(p, true))).check();
        PassCheck.of("scheduler respects tensors, reloads", Pass.of(p -> GalleryPasses.hoistStores(p, true))).generator(RELOADS).check();
    }

    @Test
    void aRemapThatForgetsTheSpillIsCaught() {
        caught(PassCheck.of("remap forgets the spill", (p, c) -> GalleryPasses.renumber(p, c, false)).run(), "well-formed", 6);
    }

    @Test
    void aSplitThatAddsTheBiasBeforeTheAllReduceIsCaught() {
        caught(PassCheck.of("bias before the all-reduce", Pass.of(GalleryPasses::biasBeforeAllReduce)).generator(BIASED).run(),
                "certificate verifies", 12);
    }

    @Test
    void aLayoutPassThatSwapsTransposeAxesIsCaught() {
        caught(PassCheck.of("transposes composed backwards", Pass.of(p -> GalleryPasses.composeTransposes(p, false))).generator(CHAINED).run(),
                "well-formed", 4);
    }

    @Test
    void composingTransposesTheRightWayHolds() {
        PassCheck.of("transposes composed", Pass.of(p -> GalleryPasses.composeTransposes(p, true))).generator(CHAINED).check();
    }

    @Test
    void theMinimalProgramOfAFailureRunsAsWritten() throws Exception {
        PassCheckReport r = PassCheck.of("remap forgets the spill", (p, c) -> GalleryPasses.renumber(p, c, false)).run();
        assertThat(Files.readString(r.failure().minimal().resolve("program.json"))).contains("\"spill\"");
        assertThat(r.failure().minimal().resolve("child.json")).exists();
    }
}
