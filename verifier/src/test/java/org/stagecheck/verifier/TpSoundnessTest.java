package org.stagecheck.verifier;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import java.util.SplittableRandom;
import org.stagecheck.proptest.SeededProperty;
import org.stagecheck.verifier.corpus.Plant;
import org.stagecheck.verifier.corpus.TpCase;
import org.stagecheck.verifier.corpus.TpPrograms;
import org.stagecheck.verifier.corpus.TpSpec;
import org.stagecheck.verifier.soundness.Outcome;
import org.stagecheck.verifier.soundness.TpRuns;

/**
 * Soundness against the evaluator, over the reference splitter's programs: acceptance
 * implies the split computes the unsplit program's outputs (within {@link TpRuns#RELATIVE_TOLERANCE}),
 * and every rejection is a real bug: on a concrete input, the mutant's outputs differ from the
 * unsplit ones beyond the tolerance, or the evaluator faults.
 */
@Tag("slow")
class TpSoundnessTest {
    private final Verifier verifier = new Verifier();

    /**
     * Input seeds tried for a mutant, in order; the first that exposes it is its witness. One seed
     * is not always enough: with one row, two hidden units per chip and ReLU, a chip's whole slice
     * is zero on some inputs, and then dropping, duplicating or squashing its zero partial
     * changes nothing (5 of the 610 mutants agree on seed 1, 4 of them on seed 2 too; seed 3 exposes
     * every one).
     */
    private static final long[] WITNESS_SEEDS = {1, 2, 3, 4, 5, 6, 7, 8};

    @SeededProperty(tries = 80)
    void acceptance_implies_the_split_equals_the_unsplit_program(long seed) {
        SplittableRandom draw = new SplittableRandom(seed);
        long specSeed = draw.nextLong(1, 1_000_001);
        int plantPick = draw.nextInt(2 * 12 + 1);
        long inputSeed = draw.nextLong(1, 1_000_001);
        TpSpec spec = TpSpec.random(specSeed);
        // half the draws the valid split, so the implication is not vacuous; else any plant that fits
        List<Plant> fitting = java.util.Arrays.stream(Plant.values()).filter(p -> p != Plant.NONE && p.fits(spec)).toList();
        Plant plant = plantPick < 12 ? Plant.NONE : fitting.get(plantPick % fitting.size());
        TpCase c = TpPrograms.split(spec, plant);
        boolean accepted = verifier.verify(c.program(), c.certificate(), c.asParent()).holds();
        if (accepted) {
            Outcome o = TpRuns.run(c, inputSeed);
            assertThat(o.kind()).as("%s on inputs %d: %s", c.name(), inputSeed, o).isEqualTo(Outcome.Kind.AGREES);
        }
        assertThat(accepted).as("the valid split must be accepted: %s", c.name()).isEqualTo(plant == Plant.NONE);
    }

    @Test
    void every_valid_split_of_the_corpus_agrees_and_every_mutant_is_a_real_bug_on_a_concrete_input() {
        Map<Plant, Tally> tally = new EnumMap<>(Plant.class);
        List<String> notShown = new ArrayList<>();
        List<String> laterWitness = new ArrayList<>();
        for (TpSpec spec : MutationCorpusTest.specs()) {
            for (Plant plant : Plant.values()) {
                if (!plant.fits(spec)) {
                    continue;
                }
                TpCase c = TpPrograms.split(spec, plant);
                Tally t = tally.computeIfAbsent(plant, p -> new Tally());
                if (plant == Plant.NONE) {
                    for (long seed : WITNESS_SEEDS) {
                        Outcome o = TpRuns.run(c, seed);
                        t.add(o);
                        if (o.kind() != Outcome.Kind.AGREES) {
                            notShown.add(c.name() + " on inputs " + seed + ": " + o);
                        }
                    }
                    continue;
                }
                Outcome witness = null;
                for (long seed : WITNESS_SEEDS) {
                    Outcome o = TpRuns.run(c, seed);
                    if (o.isRealBug()) {
                        witness = o;
                        if (seed != WITNESS_SEEDS[0]) {
                            laterWitness.add(c.name() + " on inputs " + seed);
                        }
                        break;
                    }
                }
                if (witness == null) {
                    notShown.add(c.name() + ": agrees with the unsplit program on inputs " + java.util.Arrays.toString(WITNESS_SEEDS));
                    t.agreed++;
                } else {
                    t.add(witness);
                }
            }
        }
        String table = Tally.table(tally);
        System.out.print(table);
        System.out.println(laterWitness.size() + " mutants agree on inputs " + WITNESS_SEEDS[0] + " and are exposed by:");
        laterWitness.forEach(w -> System.out.println("  " + w));
        assertThat(notShown).as(table).isEmpty();
        assertThat(tally.keySet()).containsExactlyInAnyOrder(Plant.values());
    }

    /** Per bug class: how many runs differ / fault / agree, and the smallest and largest relative difference. */
    static final class Tally {
        int differs;
        int faults;
        int agreed;
        double minRelative = Double.POSITIVE_INFINITY;
        double maxRelative = 0;
        final java.util.Set<String> faultCodes = new java.util.TreeSet<>();

        void add(Outcome o) {
            switch (o.kind()) {
                case AGREES -> agreed++;
                case DIFFERS -> differs++;
                case FAULTS -> {
                    faults++;
                    faultCodes.add(o.detail().substring(0, o.detail().indexOf(' ')));
                    return;
                }
            }
            minRelative = Math.min(minRelative, o.relative());
            maxRelative = Math.max(maxRelative, o.relative());
        }

        static String table(Map<Plant, Tally> tally) {
            StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%-26s %6s %6s %6s  %-21s %s%n",
                    "class", "agree", "differ", "fault", "relative diff min..max", "fault codes"));
            tally.forEach((p, t) -> b.append(String.format(Locale.ROOT, "%-26s %6d %6d %6d  %-21s %s%n", p, t.agreed, t.differs, t.faults,
                    t.differs + t.agreed == 0 ? "-" : String.format(Locale.ROOT, "%.2g..%.2g", t.minRelative, t.maxRelative),
                    t.faultCodes.isEmpty() ? "" : String.join(",", t.faultCodes))));
            return b.toString();
        }
    }
}
