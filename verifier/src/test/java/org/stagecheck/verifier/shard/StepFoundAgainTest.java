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
    /** The child's analysis from stage 5 on, in which leaf {@code name} (the parent's {@code leaf}, 4 x 8) is demoted: the demotion. */
    private static Demotion demotedByTheChild(Terms terms, String name, Term leaf) {
        terms.at(Terms.CHILD, 5);
        Demotion why = new Demotion(null, 5, null, "/ins/1", "p", "a partial used as a value", List.of());
        assertThat(terms.demoted("leaf:" + name, name, name, new long[] {0, 0}, new long[] {4, 8}, why)).isSameAs(leaf);
        return why;
    }

    @Test
    void a_parent_sum_found_by_its_last_step_inherits_the_childs_demotion_as_the_table_would_give_it() {
        Terms terms = new Terms();
        Ops ops = new Ops(terms);
        terms.at(Terms.PARENT, 0);
        Term acc = terms.of("leaf:acc", "acc", "acc", new long[] {4, 8});
        Term x = terms.of("leaf:x", "x", "x", new long[] {4, 8});
        Term first = ops.op("add", List.of(acc, x));
        Term sum = ops.op("add", List.of(first, x)); // the step (first + x) is remembered on first
        Demotion why = demotedByTheChild(terms, "x", x);
        assertThat(terms.demotion(first)).isNull();
        // first is the parent's, not rebuilt by the child: its step finds the parent's sum again
        Term again = ops.op("add", List.of(first, x));
        assertThat(again).isSameAs(sum);
        assertThat(terms.demotion(again)).isSameAs(why);
        terms.at(Terms.PARENT, 0);
        assertThat(terms.demotion(sum)).as("the parent's own, unchanged").isNull();
    }

    /**
     * A step whose result is no sum made from it but an operand left after cancelling
     * ({@code (a - x) + x} is {@code a}) is returned as building it again returns it: the operand
     * itself, which is not built from the step's arguments and so takes no demotion from them.
     */
    @Test
    void an_operand_left_by_a_step_takes_no_demotion_from_the_steps_arguments() {
        Terms terms = new Terms();
        Ops ops = new Ops(terms);
        terms.at(Terms.PARENT, 0);
        Term a = terms.of("leaf:a", "a", "a", new long[] {4, 8});
        Term x = terms.of("leaf:x", "x", "x", new long[] {4, 8});
        Term first = ops.op("sub", List.of(a, x));
        assertThat(ops.op("add", List.of(first, x))).isSameAs(a); // the step (first + x) is remembered on first
        demotedByTheChild(terms, "x", x);
        assertThat(ops.op("add", List.of(first, x))).isSameAs(a);
        assertThat(terms.demotion(a)).as("a is not built from x").isNull();
    }

    /** The same for a constant a step folds to ({@code (a + 2) - a} is {@code 2}): every later term built from 2 would otherwise take the demotion. */
    @Test
    void a_constant_left_by_a_step_takes_no_demotion_from_the_steps_arguments() {
        Terms terms = new Terms();
        Ops ops = new Ops(terms);
        terms.at(Terms.PARENT, 0);
        Term a = terms.of("leaf:a", "a", "a", new long[] {4, 8});
        Term two = terms.unbounded("cf:2.0", "2.0", 2);
        Term first = ops.op("add", List.of(a, two));
        assertThat(ops.op("sub", List.of(first, a))).isSameAs(two); // the step (first + neg(a)) is remembered on first
        demotedByTheChild(terms, "a", a);
        assertThat(ops.op("sub", List.of(first, a))).isSameAs(two);
        assertThat(terms.demotion(two)).as("the constant is built from nothing").isNull();
        Term y = terms.of("leaf:y", "y", "y", new long[] {4, 8});
        assertThat(terms.demotion(ops.op("mul", List.of(y, two)))).isNull();
    }
}
