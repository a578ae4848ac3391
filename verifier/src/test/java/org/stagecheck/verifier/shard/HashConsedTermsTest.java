package org.stagecheck.verifier.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.verifier.Findings;
import org.stagecheck.verifier.Parent;
import org.stagecheck.verifier.ProgramIndex;
import org.stagecheck.verifier.Verifier;
import org.stagecheck.verifier.VerifyReport;
import org.stagecheck.verifier.bench.Shapes;

/**
 * Terms are hash-consed with sums as counted multisets (docs/verifier.md, "Terms", "Canonical
 * sums"): a term does not grow with the chain that built it, and the canonical form changes
 * only the representation: equal expressions are one term, different ones stay different.
 */
@Tag("slow")
class HashConsedTermsTest {
    private final Terms terms = new Terms();
    private final Ops ops = new Ops(terms);

    private Term leaf(String name) {
        return terms.of("leaf:" + name, name, name, new long[] {1, 8});
    }

    private Term constant(double v) {
        return terms.unbounded("cf:" + v, Double.toString(v), 2);
    }

    private Term add(Term a, Term b) {
        return ops.op("add", List.of(a, b));
    }

    @Test
    void a_200000_stage_chain_verifies_with_a_term_table_that_does_not_grow_with_it() {
        int n = 200_000;
        Program p = Shapes.CHAIN.generate(n).program();
        ShardChecker checker = new ShardChecker(ProgramIndex.of(p), ShardDecls.none(), new Findings());
        checker.run();
        // the leaf, the sum {x:k} per stage: one term per stage at most, whatever k
        assertThat(checker.termsMade()).isLessThanOrEqualTo(n + 16);
        VerifyReport r = new Verifier().verify(p, null, Parent.unsplit(p));
        assertThat(r.diagnostics()).isEmpty();
    }

    @Test
    void a_chain_of_adds_of_one_value_is_one_counted_operand() {
        Term x = leaf("x");
        Term acc = add(x, x);
        for (int i = 0; i < 200_000; i++) {
            acc = add(acc, x);
        }
        assertThat(acc.operands().distinct()).containsExactly(x);
        assertThat(acc.operands().counts()).containsExactly(200_002L);
        assertThat(acc.operands().nodes()).isLessThanOrEqualTo(2);
        assertThat(acc.sources().length).isLessThanOrEqualTo(2);
        // built again, in another grouping, it is the same object
        Term again = x;
        for (int i = 0; i < 200_001; i++) {
            again = add(x, again);
        }
        assertThat(again).isSameAs(acc);
        assertThat(add(acc, x)).isNotSameAs(acc);
    }

    @Test
    void a_sum_of_many_distinct_values_holds_each_once_and_no_more_nodes_than_twice_their_number() {
        List<Term> leaves = new ArrayList<>();
        Term acc = leaf("v0");
        leaves.add(acc);
        for (int i = 1; i < 100_000; i++) {
            Term v = leaf("v" + i);
            leaves.add(v);
            acc = add(acc, v);
        }
        assertThat(acc.operands().distinct()).containsExactlyElementsOf(leaves);
        assertThat(acc.operands().nodes()).isLessThanOrEqualTo(2 * leaves.size() + 16);
        // the leaves and one sum per add
        assertThat(terms.size()).isLessThanOrEqualTo(2 * leaves.size());
        // the same multiset summed pairwise, in reverse, is the same term
        List<Term> level = new ArrayList<>(leaves.reversed());
        while (level.size() > 1) {
            List<Term> next = new ArrayList<>();
            for (int i = 0; i + 1 < level.size(); i += 2) {
                next.add(add(level.get(i), level.get(i + 1)));
            }
            if (level.size() % 2 == 1) {
                next.add(level.getLast());
            }
            level = next;
        }
        assertThat(level.getFirst()).isSameAs(acc);
    }

    @Test
    void a_chain_that_adds_each_value_and_takes_the_previous_one_away_stays_linear() {
        // acc_i = acc_{i-1} + v_i - v_{i-1}: every step looks its negation up and cancels one operand;
        // quadratic lookups would take minutes here
        int n = 100_000;
        Term previous = leaf("w0");
        Term acc = add(leaf("base"), previous);
        for (int i = 1; i < n; i++) {
            Term v = leaf("w" + i);
            acc = ops.op("sub", List.of(add(acc, v), previous));
            previous = v;
        }
        assertThat(acc).isSameAs(add(leaf("base"), previous));
        assertThat(acc.operands().distinct()).containsExactly(leaf("base"), previous);
    }

    @Test
    void equal_sums_are_one_term_and_different_ones_are_not() {
        Term a = leaf("a");
        Term b = leaf("b");
        Term c = leaf("c");
        assertThat(add(add(a, b), c)).isSameAs(add(a, add(b, c))).isSameAs(add(c, add(a, b)));
        assertThat(add(add(a, a), a)).isSameAs(add(a, add(a, a)));
        Term ab = add(a, b);
        assertThat(add(ab, ab)).isNotSameAs(ab).isSameAs(add(add(add(a, b), a), b));
        assertThat(add(a, a)).isNotSameAs(a).isNotSameAs(add(add(a, a), a));
        assertThat(add(a, b)).isNotSameAs(add(a, c)).isNotSameAs(add(add(a, b), b)).isNotSameAs(add(add(a, a), b));
        assertThat(ops.op("max", List.of(a, b))).isNotSameAs(add(a, b));
        // x + x is not rewritten to 2 * x: only the representation is canonical
        assertThat(add(a, a)).isNotSameAs(ops.op("mul", List.of(a, constant(2.0))));
        // but a summand and its negation cancel, however the negation is written
        Term negA = ops.op("neg", List.of(a));
        assertThat(ops.op("sub", List.of(a, a))).isSameAs(constant(0.0));
        assertThat(ops.op("sub", List.of(add(add(a, b), c), b))).isSameAs(add(a, c));
        assertThat(add(negA, add(b, a))).isSameAs(b);
        assertThat(add(add(a, a), negA)).isSameAs(a);
        assertThat(ops.op("mul", List.of(a, constant(-1.0)))).isSameAs(negA).isSameAs(ops.op("mul", List.of(constant(-1.0), a)))
                .isSameAs(ops.op("div", List.of(a, constant(-1.0))));
        assertThat(add(a, ops.op("mul", List.of(a, constant(-2.0))))).isNotSameAs(negA).isNotSameAs(constant(0.0));
        assertThat(add(add(b, negA), c)).isNotSameAs(add(b, c));
        assertThat(add(a, constant(0.0))).isSameAs(a);
        assertThat(add(a, a).text()).isEqualTo("sum(a, a)");
    }

    @Test
    void constants_in_a_sum_are_folded_only_when_exact() {
        Term x = leaf("x");
        assertThat(add(add(x, constant(1.0)), constant(2.0))).isSameAs(add(x, constant(3.0)));
        assertThat(ops.op("sub", List.of(add(x, constant(3.0)), constant(3.0)))).isSameAs(x);
        // 0.1 + 0.2 is no double: kept as written, so it equals neither x + 0.3 nor x + 0.30000000000000004
        Term inexact = add(add(x, constant(0.1)), constant(0.2));
        assertThat(inexact).isNotSameAs(add(x, constant(0.3))).isNotSameAs(add(x, constant(0.1 + 0.2)));
        assertThat(add(add(x, constant(0.1)), constant(0.2))).isSameAs(inexact);
    }

    @Test
    void a_count_that_would_overflow_keeps_the_sum_as_written() {
        Term x = leaf("x");
        Term acc = x;
        Term again = x;
        for (int i = 0; i < 70; i++) {
            acc = add(acc, acc);
            again = add(again, again);
        }
        assertThat(again).isSameAs(acc);
        assertThat(add(acc, acc)).isNotSameAs(acc);
    }

    @Test
    void the_text_of_a_term_nested_a_million_deep_is_cut_not_a_stack_overflow() {
        Term t = leaf("x");
        for (int i = 0; i < 1_000_000; i++) {
            t = ops.op("tanh", List.of(t));
        }
        Term deep = t;
        assertThatCode(deep::text).doesNotThrowAnyException();
        assertThat(deep.text()).startsWith("tanh(tanh(").contains("...").hasSizeLessThanOrEqualTo(Terms.TEXT_LIMIT + 3);
        assertThat(ops.op("tanh", List.of(leaf("x"))).text()).isEqualTo("tanh(x)");
    }

    @Test
    void two_chains_of_different_length_are_told_apart_against_the_unsplit_parent() {
        Program split = Shapes.CHAIN.generate(1_000).program();
        Program parent = Shapes.CHAIN.generate(1_001).program();
        assertThat(new Verifier().verify(split, null, Parent.unsplit(parent)).codes()).contains("LOGICAL_OUTPUT_DIFFERS");
        assertThat(new Verifier().verify(split, null, Parent.unsplit(split)).codes()).isEmpty();
    }
}
