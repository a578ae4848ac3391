package org.stagecheck.verifier;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.stagecheck.verifier.corpus.Plant;
import org.stagecheck.verifier.corpus.TpCase;
import org.stagecheck.verifier.corpus.TpPrograms;
import org.stagecheck.verifier.corpus.TpSpec;

/**
 * The mutation corpus: every planted bug is rejected with its code, and no valid split raises a
 * diagnostic. The corpus is every plant that fits each of a fixed set of random specs plus
 * hand-picked specs that every plant fits.
 */
class MutationCorpusTest {
    private final Verifier verifier = new Verifier();

    static List<TpSpec> specs() {
        List<TpSpec> out = new ArrayList<>();
        // every plant fits these: bias1, multicast, model == slice
        out.add(new TpSpec(2, 4, 8, 2, TpSpec.Act.RELU, true, true, false));
        out.add(new TpSpec(1, 2, 8, 4, TpSpec.Act.SILU, true, true, true));
        out.add(new TpSpec(3, 4, 16, 4, TpSpec.Act.TANH, true, true, false));
        for (long seed = 1; seed <= 60; seed++) {
            out.add(TpSpec.random(seed));
        }
        return out;
    }

    @Test
    void every_mutant_is_rejected_with_its_code_and_every_valid_split_verifies() {
        Map<Plant, int[]> tally = new EnumMap<>(Plant.class); // {mutants, killed}
        List<String> escaped = new ArrayList<>();
        for (TpSpec spec : specs()) {
            for (Plant plant : Plant.values()) {
                if (!plant.fits(spec)) {
                    continue;
                }
                TpCase c = TpPrograms.split(spec, plant);
                VerifyReport r = verifier.verify(c.program(), c.certificate(), c.asParent());
                int[] t = tally.computeIfAbsent(plant, p -> new int[2]);
                t[0]++;
                boolean ok = plant == Plant.NONE ? r.holds() : r.codes().contains(plant.expected().name());
                if (ok) {
                    t[1]++;
                } else {
                    escaped.add(c.name() + " -> " + r.codes() + (r.diagnostics().isEmpty() ? "" : "\n  " + r.diagnostics().getFirst().render()));
                }
            }
        }
        int mutants = 0;
        int killed = 0;
        StringBuilder table = new StringBuilder("plant                      cases  right\n");
        for (var e : tally.entrySet()) {
            table.append(String.format("%-26s %5d  %5d%n", e.getKey(), e.getValue()[0], e.getValue()[1]));
            if (e.getKey() != Plant.NONE) {
                mutants += e.getValue()[0];
                killed += e.getValue()[1];
            }
        }
        table.append(String.format("mutants %d, killed %d, kill rate %.1f%%%n", mutants, killed, 100.0 * killed / mutants));
        System.out.print(table);
        assertThat(escaped).as(table.toString()).isEmpty();
        assertThat(tally.keySet()).containsExactlyInAnyOrder(Plant.values());
    }

    @Test
    void unsplit_programs_and_bijective_renamings_verify() {
        for (TpSpec spec : specs()) {
            assertThat(verifier.verify(TpPrograms.unsplit(spec), null, Parent.none()).diagnostics()).as("unsplit %s", spec).isEmpty();
            TpCase renamed = TpPrograms.renamed(spec);
            assertThat(verifier.verify(renamed.program(), renamed.certificate(), renamed.asParent()).diagnostics())
                    .as("renamed %s", spec).isEmpty();
        }
    }
}
