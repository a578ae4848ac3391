package org.stagecheck.passcheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.stagecheck.spec.ir.Program;

/** PassCheck's own contract: a correct pass holds over 1 000 tries, a failure replays from its seed, a throw is a broken law. */
@Tag("slow")
class PassCheckTest {

    /** docs/pass-testing.md's pass: buffer i becomes b<i>, ports and kind-internal references alike, with the map in the certificate. */
    static Pass renumberBuffers() {
        return (p, c) -> GalleryPasses.renumber(p, c, true);
    }

    @Test
    void aCorrectPassHoldsAndSaysSo() {
        PassCheckReport r = PassCheck.of("renumber buffers", renumberBuffers()).tries(50).check();
        assertThat(r.passed()).isTrue();
        assertThat(r.tries()).isEqualTo(50);
        assertThat(r.text()).isEqualTo("PassCheck 'renumber buffers': 50 tries, every law held");
    }

    @Test
    void aFailureReplaysFromItsSeedAlone() {
        Pass buggy = (p, c) -> GalleryPasses.renumber(p, c, false);
        PassCheckReport first = PassCheck.of("replay", buggy).run();
        assertThat(first.passed()).isFalse();
        long seed = first.failure().seed();
        String before = System.getProperty(PassCheck.REPLAY);
        System.setProperty(PassCheck.REPLAY, Long.toString(seed));
        try {
            PassCheckReport again = PassCheck.of("replay", buggy).run();
            assertThat(again.tries()).isEqualTo(1);
            assertThat(again.failure().seed()).isEqualTo(seed);
            assertThat(again.failure().violation()).isEqualTo(first.failure().violation());
            assertThat(again.failure().after()).isEqualTo(first.failure().after());
        } finally {
            if (before == null) {
                System.clearProperty(PassCheck.REPLAY);
            } else {
                System.setProperty(PassCheck.REPLAY, before);
            }
        }
        assertThat(first.failure().replay()).contains("-Dtest='PassCheckTest#aFailureReplaysFromItsSeedAlone'");
    }

    @Test
    void aFailingCheckThrowsTheReportWithSeedLawMinimalProgramAndReplay() {
        assertThatThrownBy(() -> PassCheck.of("remap forgets the spill", (p, c) -> GalleryPasses.renumber(p, c, false)).check())
                .isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("PassCheck 'remap forgets the spill': law 'well-formed' broken on try ")
                .hasMessageContaining("shrunk: ")
                .hasMessageContaining("minimal program: ")
                .hasMessageContaining("replay: cd ").hasMessageContaining(" && bin/mvn25 test -pl passcheck -am ");
    }

    @Test
    void aPassThatThrowsBreaksTheLawDoesNotThrow() {
        PassCheckReport r = PassCheck.of("throws", Pass.of(p -> {
            throw new IllegalStateException("not implemented for " + p.name());
        })).tries(3).run();
        assertThat(r.failure().violation().law()).isEqualTo("does not throw");
        assertThat(r.failure().violation().signature()).isEqualTo("throws IllegalStateException");
    }

    @Test
    void theSameSeedGivesTheSameProgram() {
        Generators a = new Generators(GenConfig.defaults(), new org.stagecheck.interp.Interpreter(org.stagecheck.interp.RunOptions.defaults()));
        Generators b = new Generators(GenConfig.defaults(), new org.stagecheck.interp.Interpreter(org.stagecheck.interp.RunOptions.defaults()));
        Map<String, Integer> origins = new LinkedHashMap<>();
        for (long seed = 0; seed < 30; seed++) {
            Generated x = a.draw(new java.util.SplittableRandom(seed));
            Generated y = b.draw(new java.util.SplittableRandom(seed));
            assertThat(x.program()).isEqualTo(y.program());
            assertThat(x.origin()).isEqualTo(y.origin());
            origins.merge(x.origin().split(" ")[0] + (x.origin().contains(" tp 2") ? " split" : x.origin().contains("stages [") ? " window" : ""), 1, Integer::sum);
        }
        assertThat(origins.keySet()).as("random programs, authored windows and splits are all drawn").contains("random", "tiny window", "tiny split");
    }

    @Test
    void aUserLawIsChecked() {
        PassCheckReport r = PassCheck.of("adds a stage", Pass.of(p -> p))
                .laws(new Law.Custom("no more than 10 stages", a -> a.child().program().stages().size() > 10 ? "it has " + a.child().program().stages().size() : null))
                .tries(5).run();
        assertThat(r.failure().violation().law()).isEqualTo("no more than 10 stages");
        Program minimal = r.failure().shrink().minimal().program();
        assertThat(minimal.stages().size()).isGreaterThan(10).isLessThan(r.failure().before().stages());
    }

    /** The repository's examples, with the certificate of those that have one. */
    static java.util.List<GenConfig.Example> examples() throws Exception {
        java.nio.file.Path dir = java.nio.file.Path.of("..", "examples");
        java.util.List<GenConfig.Example> out = new java.util.ArrayList<>();
        try (var files = java.nio.file.Files.list(dir)) {
            for (java.nio.file.Path f : files.filter(x -> x.toString().endsWith(".json")).sorted().toList()) {
                Program p = new org.stagecheck.spec.json.ProgramCodec().read(new org.stagecheck.spec.json.JsonReader().read(f));
                java.nio.file.Path cert = dir.resolve("certificates").resolve(f.getFileName());
                org.stagecheck.spec.cert.Certificate c = java.nio.file.Files.exists(cert)
                        ? new org.stagecheck.spec.json.CertificateCodec().read(java.nio.file.Files.readString(cert)) : null;
                out.add(new GenConfig.Example(f.getFileName().toString(), p, c));
            }
        }
        return out;
    }

    @Test
    void theExamplesAndWindowsOfThemAreDrawnAndACorrectPassHoldsOnThem() throws Exception {
        GenConfig onlyExamples = GenConfig.defaults().withExamples(examples(), 1).withWeights(0, 0, 0);
        PassCheckReport r = PassCheck.of("renumber buffers, examples", renumberBuffers()).config(onlyExamples).tries(100).check();
        assertThat(r.tries()).isEqualTo(100);
        Generators g = new Generators(onlyExamples, new org.stagecheck.interp.Interpreter(org.stagecheck.interp.RunOptions.defaults()));
        java.util.Set<String> seen = new java.util.TreeSet<>();
        for (long seed = 0; seed < 60; seed++) {
            String origin = g.draw(new java.util.SplittableRandom(seed)).origin();
            seen.add(origin.contains("stages [") ? "window" : origin);
        }
        assertThat(seen).contains("window", "example tp2-matmul-allreduce.json");
    }
}
