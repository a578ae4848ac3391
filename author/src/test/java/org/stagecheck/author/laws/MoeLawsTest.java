package org.stagecheck.author.laws;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.stagecheck.author.ModelSpec;

/** Every law, and sparse-equals-dense dispatch, holds on the built-in mixture-of-experts model. */
class MoeLawsTest {
    @Test
    void everyLawHoldsOnTinyMoe() {
        List<LawResult> results = new Laws(ModelSpec.tinyMoe()).standardSuite(8);
        assertThat(results).extracting(LawResult::law).contains("moe-dispatch");
        assertThat(results).allSatisfy(r -> assertThat(r.holds()).as(r.law() + ": " + r.explanation()).isTrue());
    }
}
