package org.stagecheck.author.laws;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.ExpertSplit;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.backend.Backends;

/**
 * Every law, and sparse-equals-dense dispatch, holds on the built-in mixture-of-experts model;
 * split equivalence over 2 and 4 chips with the experts split either way.
 */
@Tag("slow") // every law on two expert splits of a MoE model
class MoeLawsTest {
    @ParameterizedTest
    @EnumSource(ExpertSplit.class)
    void everyLawHoldsOnTinyMoe(ExpertSplit split) {
        Laws laws = new Laws(ModelSpec.tinyMoe(), AuthorOptions.single().withExpertSplit(split), CutCompiler.identity(),
                Backends.named("interp"));
        List<LawResult> results = laws.standardSuite(8);
        assertThat(results).extracting(LawResult::law).contains("moe-dispatch", "split-equivalence");
        assertThat(results).allSatisfy(r -> assertThat(r.holds()).as(r.law() + ": " + r.explanation()).isTrue());
    }
}
