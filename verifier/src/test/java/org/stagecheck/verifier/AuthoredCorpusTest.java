package org.stagecheck.verifier;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.stagecheck.author.Author;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.verifier.corpus.AuthoredCase;
import org.stagecheck.verifier.corpus.AuthoredMutants;
import org.stagecheck.verifier.corpus.Plant;
import org.stagecheck.verifier.soundness.AuthoredRuns;
import org.stagecheck.verifier.soundness.Outcome;

/**
 * The verifier over the model author's programs: no false alarms on any cut of {@code tiny} (unsplit,
 * and split over 2 and 4 chips); every bug class that fits is rejected with its code when planted
 * into an authored split; and on the evaluator, the authored splits equal the unsplit cuts while
 * every planted mutant differs or faults.
 */
@Tag("slow")
class AuthoredCorpusTest {
    private static final ModelSpec TINY = ModelSpec.tiny();
    private static final int CTX = 8;
    private static final int ROWS = 2;
    private static final int LAYER = 1;
    private final Verifier verifier = new Verifier();

    /** One of each of the 14 cuts. */
    static List<Cut> allCuts() {
        return List.of(Cut.decode(CTX), Cut.prefill(ROWS, CTX), Cut.batch(ROWS, CTX), Cut.forward(),
                Cut.forwardLayer(LAYER), Cut.forwardHead(), Cut.decodeEmbed(), Cut.decodeLayer(LAYER, CTX),
                Cut.decodeHead(), Cut.batchEmbed(ROWS), Cut.batchLayer(LAYER, ROWS, CTX), Cut.batchHead(ROWS),
                Cut.prefillLayer(LAYER, ROWS, CTX), Cut.prefillHead(ROWS));
    }

    /** The cuts the author splits, each over 2 and 4 chips. */
    static List<AuthoredCase> validSplits() {
        List<AuthoredCase> out = new ArrayList<>();
        for (Cut cut : allCuts()) {
            if (Author.splittable(cut)) {
                for (int tp : new int[] {2, 4}) {
                    out.add(AuthoredMutants.valid(TINY, cut, tp));
                }
            }
        }
        return out;
    }

    @Test
    void every_cut_verifies_unsplit_and_every_splittable_cut_verifies_split_over_2_and_4_chips() {
        List<Cut> cuts = allCuts();
        assertThat(cuts).hasSize(14);
        for (Cut cut : cuts) {
            var a = (AuthorOutcome.Authored) Author.author(TINY, cut, AuthorOptions.single());
            assertThat(verifier.verify(a.program(), null, Parent.none()).diagnostics()).as("unsplit %s", cut).isEmpty();
            assertThat(verifier.verify(a.program(), null, Parent.remap(a.program())).diagnostics()).as("unsplit %s against itself", cut).isEmpty();
        }
        List<AuthoredCase> splits = validSplits();
        assertThat(splits).extracting(c -> c.cut().name()).containsOnly("Decode", "Batch", "DecodeLayer", "BatchLayer").hasSize(8);
        for (AuthoredCase c : splits) {
            assertThat(c.certificate().shards()).as("%s declares its row shards", c.name()).isNotEmpty();
            assertThat(verifier.verify(c.program(), c.certificate(), Parent.none()).diagnostics()).as(c.name()).isEmpty();
            assertThat(verifier.verify(c.program(), c.certificate(), Parent.remap(c.program())).diagnostics()).as("%s against itself", c.name()).isEmpty();
        }
    }

    /**
     * Against the unsplit cut (docs/verifier.md, "The unsplit parent"): every authored split
     * (Megatron attention with grouped-query heads, row-parallel projections, KV cache shards)
     * computes it; a residual added twice on every chip is consistent, so only the parent shows it.
     */
    @Test
    void every_authored_split_computes_its_unsplit_cut_and_a_residual_added_twice_does_not() {
        for (AuthoredCase c : validSplits()) {
            var unsplit = ((AuthorOutcome.Authored) Author.author(TINY, c.cut(), AuthorOptions.single())).program();
            assertThat(verifier.verify(c.program(), c.certificate(), Parent.unsplit(unsplit)).codes()).as(c.name()).isEmpty();
            AuthoredCase twice = AuthoredMutants.residualTwice(c);
            assertThat(verifier.verify(twice.program(), twice.certificate(), Parent.none()).codes()).as("%s alone", twice.name()).isEmpty();
            assertThat(verifier.verify(twice.program(), twice.certificate(), Parent.unsplit(unsplit)).codes()).as(twice.name())
                    .isNotEmpty().containsOnly("LOGICAL_OUTPUT_DIFFERS");
            assertThat(AuthoredRuns.run(twice, AuthoredRuns.reference(c)).kind()).as(twice.name()).isEqualTo(Outcome.Kind.DIFFERS);
        }
    }

    @Test
    void every_bug_class_planted_into_an_authored_split_is_rejected_with_its_code() {
        Map<Plant, int[]> tally = new EnumMap<>(Plant.class); // {mutants, killed}
        Map<Plant, java.util.Set<String>> alsoReported = new EnumMap<>(Plant.class);
        List<String> escaped = new ArrayList<>();
        for (AuthoredCase valid : validSplits()) {
            for (Plant plant : Plant.values()) {
                if (plant == Plant.NONE) {
                    continue;
                }
                Optional<AuthoredCase> m = AuthoredMutants.plant(valid, plant);
                if (m.isEmpty()) {
                    continue;
                }
                AuthoredCase c = m.get();
                VerifyReport r = verifier.verify(c.program(), c.certificate(), c.asParent());
                int[] t = tally.computeIfAbsent(plant, p -> new int[2]);
                t[0]++;
                alsoReported.computeIfAbsent(plant, p -> new java.util.TreeSet<>()).addAll(r.codes());
                alsoReported.get(plant).remove(plant.expectedAuthored().name());
                if (r.codes().contains(plant.expectedAuthored().name())) {
                    t[1]++;
                } else {
                    escaped.add(c.name() + " -> " + r.codes() + (r.diagnostics().isEmpty() ? "" : "\n  " + r.diagnostics().getFirst().render()));
                }
            }
        }
        int mutants = tally.values().stream().mapToInt(t -> t[0]).sum();
        int killed = tally.values().stream().mapToInt(t -> t[1]).sum();
        StringBuilder table = new StringBuilder("authored: class          mutants  right  expected code        also reported\n");
        tally.forEach((p, t) -> table.append(String.format(Locale.ROOT, "%-26s %5d  %5d  %-20s %s%n", p, t[0], t[1], p.expectedAuthored(),
                String.join(",", alsoReported.get(p)))));
        table.append(String.format(Locale.ROOT, "mutants %d, killed %d, kill rate %.1f%%%n", mutants, killed, 100.0 * killed / mutants));
        System.out.print(table);
        assertThat(escaped).as(table.toString()).isEmpty();
        // every class but the kind-internal one has a place in every authored split
        for (Plant p : Plant.values()) {
            if (p != Plant.NONE) {
                assertThat(tally).as(table.toString()).containsKey(p);
                assertThat(tally.get(p)[0]).as("%s mutants", p).isGreaterThanOrEqualTo(p == Plant.UNMAPPED_INTERNAL_REF ? 4 : 8);
            }
        }
    }

    @Test
    void authored_splits_equal_the_unsplit_cuts_and_every_authored_mutant_is_a_real_bug() {
        Map<Plant, TpSoundnessTest.Tally> tally = new EnumMap<>(Plant.class);
        List<String> wrong = new ArrayList<>();
        for (AuthoredCase valid : validSplits()) {
            AuthoredRuns.Reference ref = AuthoredRuns.reference(valid);
            for (Plant plant : Plant.values()) {
                Optional<AuthoredCase> m = AuthoredMutants.plant(valid, plant);
                if (m.isEmpty()) {
                    continue;
                }
                Outcome o = AuthoredRuns.run(m.get(), ref);
                tally.computeIfAbsent(plant, p -> new TpSoundnessTest.Tally()).add(o);
                if (o.isRealBug() != (plant != Plant.NONE)) {
                    wrong.add(m.get().name() + ": " + o);
                }
            }
        }
        String table = TpSoundnessTest.Tally.table(tally);
        System.out.print("authored, on the evaluator:\n" + table);
        assertThat(wrong).as(table).isEmpty();
    }

    /**
     * The one rejection in the corpora that is not a numerical bug, pinned so that it stays a
     * decision: in a batch layer, row 0's cache offset is {@code pos_r0 + 0*ctx}, a buffer equal in
     * value to {@code pos_r0}. A remap that leaves the k/v store's offset reference pointing at
     * {@code pos_r0} computes the same outputs on every input, yet the certificate's claim (the
     * child is the parent with its buffers renamed) is false, and that claim is what BUFFER_REMAP
     * checks: the same slip on row 1 ({@code pos_r1 + ctx}) corrupts another row's cache.
     */
    @Test
    void an_unmapped_reference_to_an_equal_valued_buffer_is_rejected_though_the_outputs_agree() {
        AuthoredCase valid = AuthoredMutants.valid(TINY, Cut.batchLayer(LAYER, ROWS, CTX), 2);
        AuthoredRuns.Reference ref = AuthoredRuns.reference(valid);

        AuthoredCase row0 = AuthoredMutants.unmappedInternalRef(valid, "cache_row.l1.r0", "pos_r0");
        assertThat(verifier.verify(row0.program(), row0.certificate(), row0.asParent()).codes()).contains("REMAP_INTERNAL_REF");
        assertThat(AuthoredRuns.run(row0, ref).kind()).isEqualTo(Outcome.Kind.AGREES);

        AuthoredCase row1 = AuthoredMutants.unmappedInternalRef(valid, "cache_row.l1.r1", "pos_r1");
        assertThat(verifier.verify(row1.program(), row1.certificate(), row1.asParent()).codes()).contains("REMAP_INTERNAL_REF");
        assertThat(AuthoredRuns.run(row1, ref).kind()).isEqualTo(Outcome.Kind.DIFFERS);
    }
}
