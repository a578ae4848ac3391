package org.stagecheck.verifier.shard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A sum's last step ({@code acc + x} found again from {@code acc} without a look-up, {@link Ops})
 * does for a sum the other analysis made what finding it in the table does: the child's sum is
 * built from the child's demotion.
 */
class StepFoundAgainTest {
    @Test
    void a_parent_sum_found_by_its_last_step_inherits_the_childs_demotion_as_the_table_would_give_it() {
        Terms terms = new Terms();
        Ops ops = new Ops(terms);
        terms.at(Terms.PARENT, 0);
        Term acc = terms.of("leaf:acc", "acc", "acc", new long[] {4, 8});
        Term x = terms.of("leaf:x", "x", "x", new long[] {4, 8});
        Term first = ops.op("add", List.of(acc, x));
        Term sum = ops.op("add", List.of(first, x)); // the step (first + x) is remembered on first
        terms.at(Terms.CHILD, 5);
        Demotion why = new Demotion(null, 5, null, "/ins/1", "p", "a partial used as a value", List.of());
        assertThat(terms.demoted("leaf:x", "x", "x", new long[] {0, 0}, new long[] {4, 8}, why)).isSameAs(x);
        assertThat(terms.demotion(first)).isNull();
        // first is the parent's, not rebuilt by the child: its step finds the parent's sum again
        Term again = ops.op("add", List.of(first, x));
        assertThat(again).isSameAs(sum);
        assertThat(terms.demotion(again)).isSameAs(why);
        terms.at(Terms.PARENT, 0);
        assertThat(terms.demotion(sum)).as("the parent's own, unchanged").isNull();
    }
}
