package org.stagecheck.verifier.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The texts of plain operations and canonical sums, kept by id in their table once rendered
 * whole ({@link Terms#keepText}): each term renders its own text however many are kept, and the
 * marker of a full chain (no term of the table, id -1) renders without breaking the map keyed
 * by ids. Also the array of chain-kept terms ({@link Terms#grownLength}), which fails clearly
 * when full.
 */
class KeptTextsTest {
    private final Terms terms = new Terms();
    private final Ops ops = new Ops(terms);

    @Test
    void every_operation_renders_its_own_text_once_many_are_kept() {
        Term x = terms.of("leaf:x", "x", "x", new long[] {4});
        Term y = terms.of("leaf:y", "y", "y", new long[] {4});
        List<Term> made = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            made.add(ops.op("f" + i, List.of(i % 2 == 0 ? x : y)));
            made.add(ops.op("sum", List.of(made.get(2 * i), i % 2 == 0 ? y : x)));
        }
        for (int pass = 0; pass < 2; pass++) { // rendered, then read back from the kept texts
            for (int i = 0; i < 3000; i++) {
                String arg = i % 2 == 0 ? "x" : "y";
                assertThat(made.get(2 * i).text()).isEqualTo("f" + i + "(" + arg + ")");
                assertThat(made.get(2 * i + 1).text()).contains("f" + i + "(" + arg + ")").startsWith("sum(");
            }
        }
    }

    @Test
    void the_marker_of_a_full_chain_renders_without_failing() {
        Term a = terms.of("leaf:a", "a", "a", new long[] {4});
        for (int i = 0; i < 40; i++) {
            ops.op("g" + i, List.of(a)); // one anchor: its chain fills and moves to the table
        }
        Term marker = a.uses();
        assertThat(marker).isNotNull();
        assertThat(marker.id()).isNegative();
        assertThatCode(marker::toString).doesNotThrowAnyException();
        assertThat(marker.text()).isEqualTo(marker.text());
    }

    @Test
    void the_array_of_chain_kept_terms_doubles_up_to_its_most_and_then_fails_clearly() {
        assertThat(Terms.grownLength(1024)).isEqualTo(2048);
        assertThat(Terms.grownLength(Integer.MAX_VALUE / 2 + 1)).isEqualTo(Terms.MOST_CHAIN_KEPT);
        assertThatThrownBy(() -> Terms.grownLength(Terms.MOST_CHAIN_KEPT))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("chain-kept");
    }
}
