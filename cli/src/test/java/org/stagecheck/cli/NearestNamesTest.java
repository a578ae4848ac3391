package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The edit distance and how near a name must be to be suggested. */
class NearestNamesTest {
    @Test
    void distanceCountsInsertionsDeletionsSubstitutionsAndSwaps() {
        assertThat(NearestNames.distance("tokens", "tokens")).isZero();
        assertThat(NearestNames.distance("tokns", "tokens")).isEqualTo(1);
        assertThat(NearestNames.distance("--tarce", "--trace")).isEqualTo(1);
        assertThat(NearestNames.distance("kv_k.10", "kv_k.l0")).isEqualTo(1);
        assertThat(NearestNames.distance("", "abc")).isEqualTo(3);
        assertThat(NearestNames.distance("kitten", "sitting")).isEqualTo(3);
    }

    @Test
    void onlyTheNearestWithinTheLimitAreSuggested() {
        List<String> known = List.of("kv_k.l0", "kv_k.l1", "kv_v.l0", "tokens", "pos");
        assertThat(NearestNames.nearest("kv_k.10", known)).containsExactly("kv_k.l0");
        assertThat(NearestNames.nearest("kv_k.l2", known)).containsExactly("kv_k.l0", "kv_k.l1");
        assertThat(NearestNames.nearest("zzzzzz", known)).isEmpty();
        // a short name allows one edit only: 'x' is not 'pos'
        assertThat(NearestNames.nearest("px", known)).isEmpty();
        assertThat(NearestNames.nearest("tokens", known)).as("the name itself is no suggestion").isEmpty();
        assertThat(NearestNames.didYouMean("kv_k.l2", known)).isEqualTo("did you mean 'kv_k.l0' or 'kv_k.l1'?");
        assertThat(NearestNames.suffix("qqq", known)).isEmpty();
        assertThat(NearestNames.nearest("a".repeat(100_000), List.of("a".repeat(100_001)))).as("no quadratic table for a huge name").isEmpty();
    }
}
