package org.stagecheck.verifier;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.stagecheck.proptest.SeededProperty;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.verifier.corpus.Plant;
import org.stagecheck.verifier.corpus.TpCase;
import org.stagecheck.verifier.corpus.TpPrograms;
import org.stagecheck.verifier.corpus.TpSpec;

/** Laws: valid splits verify; ill-formed input gives findings, never an exception or a checker fault. */
class RobustnessPropertiesTest {

    /** A spec seed in the range the corpus specs are drawn from, 1..1 000 000. */
    static long specSeed(SplittableRandom r) {
        return r.nextLong(1, 1_000_001);
    }

    @SeededProperty(tries = 200)
    void every_random_valid_split_verifies(long seed) {
        TpCase c = TpPrograms.split(TpSpec.random(specSeed(new SplittableRandom(seed))), Plant.NONE);
        assertThat(new Verifier().verify(c.program(), c.certificate(), Parent.none()).diagnostics()).isEmpty();
    }

    @SeededProperty(tries = 300)
    void dangling_names_and_reordered_stages_are_reported_not_thrown(long seed) {
        SplittableRandom draw = new SplittableRandom(seed);
        TpCase c = TpPrograms.split(TpSpec.random(specSeed(draw)), Plant.NONE);
        int damage = draw.nextInt(3);
        int where = draw.nextInt(10_001);
        List<Stage> stages = new ArrayList<>(c.program().stages());
        int i = where % stages.size();
        Stage s = stages.get(i);
        switch (damage) {
            case 0 -> stages.set(i, s.remapBuffers(b -> "ghost"));             // every reference dangles
            case 1 -> stages.remove(i);                                         // a producer disappears
            case 2 -> stages.add(0, stages.remove(stages.size() - 1 - i % 3)); // a consumer runs first
            default -> throw new AssertionError("damage " + damage);
        }
        Program broken = c.program().withStages(stages);
        VerifyReport r = new Verifier().verify(broken, c.certificate(), Parent.remap(c.program()));
        assertThat(r.codes()).doesNotContain(Code.CHECKER_FAULT.name());
        assertThat(r.holds()).isFalse();
    }
}
