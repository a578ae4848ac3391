package org.stagecheck.verifier;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.verifier.corpus.Plant;
import org.stagecheck.verifier.corpus.TpCase;
import org.stagecheck.verifier.corpus.TpPrograms;
import org.stagecheck.verifier.corpus.TpSpec;

/** Laws: valid splits verify; ill-formed input gives findings, never an exception or a checker fault. */
class RobustnessPropertiesTest {

    @Property(tries = 200)
    void every_random_valid_split_verifies(@ForAll @LongRange(min = 1, max = 1_000_000) long seed) {
        TpCase c = TpPrograms.split(TpSpec.random(seed), Plant.NONE);
        assertThat(new Verifier().verify(c.program(), c.certificate(), null).diagnostics()).isEmpty();
    }

    @Property(tries = 300)
    void dangling_names_and_reordered_stages_are_reported_not_thrown(
            @ForAll @LongRange(min = 1, max = 1_000_000) long seed,
            @ForAll @IntRange(min = 0, max = 2) int damage,
            @ForAll @IntRange(min = 0, max = 10_000) int where) {
        TpCase c = TpPrograms.split(TpSpec.random(seed), Plant.NONE);
        List<Stage> stages = new ArrayList<>(c.program().stages());
        int i = where % stages.size();
        Stage s = stages.get(i);
        switch (damage) {
            case 0 -> stages.set(i, s.remapBuffers(b -> "ghost"));             // every reference dangles
            case 1 -> stages.remove(i);                                         // a producer disappears
            default -> stages.add(0, stages.remove(stages.size() - 1 - i % 3)); // a consumer runs first
        }
        Program broken = c.program().withStages(stages);
        VerifyReport r = new Verifier().verify(broken, c.certificate(), c.program());
        assertThat(r.codes()).doesNotContain(Code.CHECKER_FAULT.name());
        assertThat(r.holds()).isFalse();
    }
}
