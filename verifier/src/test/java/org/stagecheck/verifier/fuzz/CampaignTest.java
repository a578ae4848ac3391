package org.stagecheck.verifier.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The evaluator-judged campaigns as the checker's standing test: no program the evaluator shows
 * wrong is accepted, and every right program rejected is one of the documented limits
 * (docs/verifier.md, "What the checker does not prove"). Two campaigns: the MLP splits with
 * mutations ({@link Campaign}) and a generator per split class ({@link ClassCampaign}). A fast
 * slice of each runs in every build; the full campaigns of 10 000 programs each are tagged
 * {@code campaign} and run on demand
 * ({@code bin/mvn25 -pl verifier -am test -Dgroups=campaign -Dverifier.excludedGroups= -Dtest=CampaignTest -Dsurefire.failIfNoSpecifiedTests=false}).
 */
class CampaignTest {
    /** Mutations whose right programs the checker may reject, each a documented limit. */
    static final Set<Mutation> DOCUMENTED_LIMITS = Set.of();

    /** Right variants of the split classes that the checker may reject ("class VARIANT"), each a documented limit. */
    static final Set<String> DOCUMENTED_CLASS_LIMITS = Set.of();

    private static void check(Campaign.Tally t) {
        System.out.println(t.table());
        assertThat(t.unsound()).as("accepted although the evaluator shows them wrong (edits of the logical program aside)").isEmpty();
        assertThat(t.incomplete()).as("right programs rejected outside the documented limits")
                .allSatisfy(r -> assertThat(DOCUMENTED_LIMITS).as(r.toString()).contains(r.mutation()));
        // a bias added twice is consistent on every chip: only the comparison with the unsplit parent finds it
        assertThat(t.codes(Mutation.BIAS_TWICE)).containsExactly("LOGICAL_OUTPUT_DIFFERS");
    }

    @Test
    void a_fast_slice_of_the_campaign_has_no_accepted_wrong_program() {
        check(Campaign.run(1, 300));
    }

    @Test
    @Tag("campaign")
    void the_full_campaign_of_ten_thousand_programs() {
        Campaign.Tally t = Campaign.run(1, 10_000);
        assertThat(t.total()).isEqualTo(10_000);
        check(t);
    }

    private static void check(ClassCampaign.Tally t) {
        System.out.println(t.table());
        t.unsound().forEach(r -> System.out.println("ACCEPTED WRONG " + r));
        t.incomplete().forEach(r -> System.out.println("REJECTED RIGHT " + r));
        assertThat(t.unsound()).as("accepted although the evaluator shows them wrong").isEmpty();
        assertThat(t.incomplete()).as("right programs rejected outside the documented limits")
                .allSatisfy(r -> assertThat(DOCUMENTED_CLASS_LIMITS).as(r.toString()).contains(r.program().splitClass() + " " + r.program().variant()));
    }

    @Test
    void a_fast_slice_of_every_split_class_has_no_accepted_wrong_program() {
        ClassCampaign.Tally t = ClassCampaign.run(1, 8 * SplitClass.values().length);
        assertThat(t.classes()).containsExactlyInAnyOrder(SplitClass.values());
        check(t);
    }

    @Test
    @Tag("campaign")
    void the_full_per_class_campaign_of_ten_thousand_programs() {
        ClassCampaign.Tally t = ClassCampaign.run(1, 10_000);
        assertThat(t.total()).isEqualTo(10_000);
        check(t);
    }
}
