package org.stagecheck.passcheck;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;

/**
 * The gallery: buggy passes, each caught by PassCheck within its default tries and shrunk to a
 * counter-example of a few stages that breaks the same law the same way; the correct passes hold.
 * Each report is printed, and the table of docs/pass-testing.md ("The gallery") is
 * written to {@code target/passcheck/gallery.md} by this class alone:
 * {@code bin/mvn25 -B -q test -pl passcheck -am -Dsurefire.failIfNoSpecifiedTests=false -Dtest=PassCheckGalleryTest}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("slow")
class PassCheckGalleryTest {
    /** The table's rows, by their place in it (the tests run in any order). */
    private final Map<Integer, String> rows = new TreeMap<>();

    private static final Generators RANDOM = new Generators(GenConfig.randomOnly(), new Interpreter(RunOptions.defaults()));

    private static final Function<RandomGenerator, Generated> BIASED = r -> {
        Generated g = RANDOM.random(r);
        return Decorations.biasAfterAllReduce(g, r.nextLong());
    };

    private static final Function<RandomGenerator, Generated> CHAINED = r -> Decorations.transposeChains(RANDOM.random(r), r);

    private static final Function<RandomGenerator, Generated> NARROW = r -> Decorations.narrowGenericChains(RANDOM.random(r));

    private static final Function<RandomGenerator, Generated> RELOADS = r -> Decorations.loadBeforeRestore(RANDOM.random(r));

    @AfterAll
    void writeTheTable() throws IOException {
        StringBuilder t = new StringBuilder("| buggy pass | caught on try (of " + PassCheck.DEFAULT_TRIES
                + ") | law: finding | stages before -> after | elements before -> after |\n| --- | ---: | --- | --- | --- |\n");
        rows.values().forEach(r -> t.append(r).append('\n'));
        Path out = Path.of("target", "passcheck", "gallery.md");
        Files.createDirectories(out.getParent());
        Files.writeString(out, t);
        System.out.println(t);
    }

    private PassCheckReport caught(int place, String bug, PassCheckReport r, String law, int maxStages) {
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
        rows.put(place, "| %s | %d | %s | %d -> %d | %d -> %d |".formatted(bug, f.tryIndex() + 1, f.violation().signature(),
                f.before().stages(), f.after().stages(), f.before().elements(), f.after().elements()));
        return r;
    }

    @Test
    void aFusionThatDropsTheCastIsCaught() {
        caught(1, "fusion of two Generics that drops the cast (a bf16 intermediate)",
                PassCheck.of("fusion drops the cast", Pass.of(p -> GalleryPasses.fuseGenerics(p, false))).generator(NARROW).run(),
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
        caught(2, "scheduler that moves a Store above the Load reading the tensor's old contents",
                PassCheck.of("scheduler ignores tensors", Pass.of(p -> GalleryPasses.hoistStores(p, false))).generator(RELOADS).run(),
                "same outputs", 8);
    }

    @Test
    void theSchedulerThatRespectsTensorsHolds() {
        PassCheck.of("scheduler respects tensors", Pass.of(p -> GalleryPasses.hoistStores(p, true))).check();
        PassCheck.of("scheduler respects tensors, reloads", Pass.of(p -> GalleryPasses.hoistStores(p, true))).generator(RELOADS).check();
    }

    @Test
    void aRemapThatForgetsTheSpillIsCaught() {
        caught(3, "buffer remap that forgets a MatMul's spill",
                PassCheck.of("remap forgets the spill", (p, c) -> GalleryPasses.renumber(p, c, false)).run(), "well-formed", 6);
    }

    @Test
    void aSplitThatAddsTheBiasBeforeTheAllReduceIsCaught() {
        caught(4, "split that adds the bias before the all-reduce",
                PassCheck.of("bias before the all-reduce", Pass.of(GalleryPasses::biasBeforeAllReduce)).generator(BIASED).run(),
                "certificate verifies", 12);
    }

    @Test
    void aLayoutPassThatSwapsTransposeAxesIsCaught() {
        caught(5, "layout pass composing two transposes the wrong way round (axes swapped)",
                PassCheck.of("transposes composed backwards", Pass.of(p -> GalleryPasses.composeTransposes(p, false))).generator(CHAINED).run(),
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
