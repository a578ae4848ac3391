package org.stagecheck.verifier.shard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The hash-consing table ({@link TermTable}, docs/verifier.md "Scale"): through many growths of
 * the table, every operation over the same operands is found again as the same term, and every
 * different one (another operation, another order, another operand, a sum with another count)
 * is a term of its own.
 */
class TermTableTest {
    private final Terms terms = new Terms();
    private final Ops ops = new Ops(terms);

    private Term leaf(int i) {
        return terms.of("leaf:x" + i, "x" + i, "x" + i, new long[] {1, 8});
    }

    /** Leaves x0 ... x(n-1). */
    private List<Term> leaves(int n) {
        List<Term> leaves = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            leaves.add(leaf(i));
        }
        return leaves;
    }

    @Test
    void operations_over_the_same_operands_are_one_term_and_any_other_is_another() {
        int n = 3000;
        List<Term> leaves = leaves(n);
        List<Term> made = new ArrayList<>();
        for (int i = 0; i + 1 < n; i++) {
            Term a = leaves.get(i);
            Term b = leaves.get(i + 1);
            made.add(ops.op("div", List.of(a, b)));
            made.add(ops.op("div", List.of(b, a)));
            made.add(ops.op("tanh", List.of(a)));
            made.add(ops.op("add", List.of(a, b)));
        }
        int size = terms.size();
        // 4 (n - 1) operations, each new where it was made: the table grew many times past its first 1024 slots
        assertThat(made).doesNotHaveDuplicates();
        int k = 0;
        for (int i = 0; i + 1 < n; i++) {
            Term a = leaves.get(i);
            Term b = leaves.get(i + 1);
            assertThat(ops.op("div", List.of(a, b))).isSameAs(made.get(k++));
            assertThat(ops.op("div", List.of(b, a))).isSameAs(made.get(k++));
            assertThat(ops.op("tanh", List.of(a))).isSameAs(made.get(k++));
            // a sum is a multiset: the other order is the same term
            assertThat(ops.op("add", List.of(b, a))).isSameAs(made.get(k++));
        }
        assertThat(terms.size()).isEqualTo(size);
        Term twice = ops.op("add", List.of(ops.op("add", List.of(leaves.get(0), leaves.get(1))), leaves.get(1)));
        assertThat(twice).isNotSameAs(made.get(3));
        assertThat(ops.op("sigmoid", List.of(leaves.get(0)))).isNotSameAs(made.get(2));
        assertThat(terms.size()).isEqualTo(size + 2);
    }

    @Test
    void operations_whose_hashes_collide_stay_different_terms() {
        List<Term> leaves = leaves(64);
        // ids a, b and a + 1, b - 31 give one hash code to div(x_a, x_b) and div(x_(a+1), x_(b-31))
        Term a = leaves.get(0);
        Term b = leaves.get(40);
        Term c = leaves.get(1);
        Term d = leaves.get(9);
        assertThat(c.id()).isEqualTo(a.id() + 1);
        assertThat(d.id()).isEqualTo(b.id() - 31);
        assertThat(Terms.OpKey.hash("div", new Term[] {a, b})).isEqualTo(Terms.OpKey.hash("div", new Term[] {c, d}));
        Term first = ops.op("div", List.of(a, b));
        Term second = ops.op("div", List.of(c, d));
        assertThat(second).isNotSameAs(first);
        assertThat(second.opArgs()).containsExactly(c, d);
        assertThat(ops.op("div", List.of(a, b))).isSameAs(first);
    }

    @Test
    void operations_sharing_their_newest_argument_past_its_chain_are_found_in_the_table() {
        // 300 leaves, then t: every div(x_i, t) and tanh-free op over t has t as its newest argument
        List<Term> leaves = leaves(300);
        Term t = leaf(1000);
        List<Term> made = new ArrayList<>();
        for (Term x : leaves) {
            made.add(ops.op("div", List.of(x, t)));
            made.add(ops.op("div", List.of(t, x)));
        }
        made.add(ops.op("tanh", List.of(t)));
        made.add(ops.op("div", List.of(t, t)));
        assertThat(made).doesNotHaveDuplicates();
        int size = terms.size();
        // built again in another order (the last ones first): each is the same term, none is new
        for (int i = leaves.size() - 1; i >= 0; i--) {
            assertThat(ops.op("div", List.of(t, leaves.get(i)))).isSameAs(made.get(2 * i + 1));
            assertThat(ops.op("div", List.of(leaves.get(i), t))).isSameAs(made.get(2 * i));
        }
        assertThat(ops.op("tanh", List.of(t))).isSameAs(made.get(made.size() - 2));
        assertThat(ops.op("div", List.of(t, t))).isSameAs(made.get(made.size() - 1));
        assertThat(terms.size()).isEqualTo(size);
        assertThat(made.get(0).opArgs()).containsExactly(leaves.get(0), t);
    }

    @Test
    void sums_sharing_their_newest_operand_past_its_chain_are_found_in_the_table() {
        List<Term> leaves = leaves(300);
        Term t = leaf(1000);
        List<Term> made = new ArrayList<>();
        for (Term x : leaves) {
            made.add(ops.op("add", List.of(x, t)));
            made.add(ops.op("max", List.of(t, x)));
            made.add(ops.op("mul", List.of(x, t))); // a plain operation in the same anchor's chain
        }
        Term sumOfT = t;
        for (int k = 2; k <= 40; k++) {
            sumOfT = ops.op("add", List.of(sumOfT, t));
            made.add(sumOfT);
        }
        assertThat(made).doesNotHaveDuplicates();
        int size = terms.size();
        for (int i = leaves.size() - 1; i >= 0; i--) {
            Term x = leaves.get(i);
            assertThat(ops.op("add", List.of(t, x))).isSameAs(made.get(3 * i));
            assertThat(ops.op("max", List.of(x, t))).isSameAs(made.get(3 * i + 1));
            assertThat(ops.op("mul", List.of(t, x))).isSameAs(made.get(3 * i + 2));
        }
        // 40 t as 20 (t + t) summed: the same multiset {t: 40}
        Term twice = ops.op("add", List.of(t, t));
        Term forty = twice;
        for (int k = 2; k <= 20; k++) {
            forty = ops.op("add", List.of(forty, twice));
        }
        assertThat(forty).isSameAs(sumOfT);
        assertThat(terms.size()).isEqualTo(size);
        // a newer operand added and taken away again: the sum is anchored at t once more, and found
        Term u = leaf(2000);
        Term withU = ops.op("add", List.of(made.get(0), u));
        assertThat(ops.op("sub", List.of(withU, u))).isSameAs(made.get(0));
    }

    private Term constant(double v) {
        return terms.unbounded("cf:" + v, Double.toString(v), 2);
    }

    @Test
    void sums_of_one_operand_and_a_constant_are_one_term_however_built_and_merge_as_sums() {
        List<Term> constants = new ArrayList<>();
        for (int k = 1; k <= 40; k++) {
            constants.add(constant(k / 4.0));
        }
        Term x = leaf(1);
        Term y = leaf(2);
        List<Term> made = new ArrayList<>();
        for (Term c : constants) {
            made.add(ops.op("add", List.of(x, c)));
        }
        assertThat(made).doesNotHaveDuplicates();
        int size = terms.size();
        for (int k = 1; k <= 40; k++) {
            // (x + (k/4 + 1)) - 1 and (1 + x) + (k/4 - 1): the same multiset {x} and the same constant
            Term viaMore = ops.op("sub", List.of(ops.op("add", List.of(x, constant(k / 4.0 + 1))), constant(1.0)));
            Term viaOther = ops.op("add", List.of(ops.op("add", List.of(constant(1.0), x)), constant(k / 4.0 - 1)));
            assertThat(viaMore).as("x + %s", k / 4.0).isSameAs(made.get(k - 1));
            assertThat(viaOther).as("x + %s", k / 4.0).isSameAs(made.get(k - 1));
        }
        Term first = made.getFirst();
        assertThat(first.operands().distinct()).containsExactly(x);
        assertThat(first.operands().counts()).containsExactly(1L);
        assertThat(first.constant()).isSameAs(constants.getFirst());
        assertThat(first.text()).isEqualTo("sum(0.25, x1)"); // operands by id: the constant was made first
        // added to another operand it is the three-term sum; its constant taken away again, x itself
        assertThat(ops.op("add", List.of(first, y))).isSameAs(ops.op("add", List.of(ops.op("add", List.of(y, x)), constants.getFirst())));
        assertThat(ops.op("sub", List.of(first, constants.getFirst()))).isSameAs(x);
        // x + x + 0.25 is another multiset ({x: 2}), not the sum of x once
        assertThat(ops.op("add", List.of(first, x))).isNotSameAs(first);
        assertThat(ops.op("max", List.of(x, constants.getFirst()))).isNotSameAs(first);
        assertThat(terms.size()).isGreaterThan(size);
    }

    @Test
    void a_sum_of_one_operand_once_is_one_term_whether_reached_as_one_or_as_two_less_one() {
        Term x = leaf(1);
        Term y = leaf(2);
        Term c = constant(0.5);
        Term once = ops.op("add", List.of(x, c));
        // (x + x + 0.5) - x: {x: 2} less one x, kept as a multiset until the operand is taken away
        Term twice = ops.op("add", List.of(ops.op("add", List.of(x, x)), c));
        assertThat(twice).isNotSameAs(once);
        assertThat(ops.op("sub", List.of(twice, x))).isSameAs(once);
        // (x + y + 0.5) - y: the newest operand taken away, the sum anchored at x again
        Term both = ops.op("add", List.of(ops.op("add", List.of(x, y)), c));
        assertThat(ops.op("sub", List.of(both, y))).isSameAs(once);
        assertThat(once.operands().single()).isSameAs(x);
        assertThat(once.text()).isEqualTo(ops.op("sub", List.of(twice, x)).text());
        // a row plus a zero of rank 2 (a broadcast): the sum of one operand once, of rank 2, one
        // term in either order, and another than the row's max with the same zero
        Term row = terms.of("leaf:row", "row", "row", new long[] {8});
        Term zero = terms.unbounded("cf:0.0", "0.0", 2);
        Term widened = ops.op("add", List.of(row, zero));
        assertThat(widened.flatOp()).isEqualTo("sum");
        assertThat(widened.rank()).isEqualTo(2);
        assertThat(widened.operands().single()).isSameAs(row);
        assertThat(ops.op("add", List.of(zero, row))).isSameAs(widened);
        assertThat(ops.op("max", List.of(row, zero))).isNotSameAs(widened);
    }

    @Test
    void a_large_sum_plus_a_small_one_is_built_on_the_large_one_even_just_folded() {
        // a chain of sums until its last step folds its operands into one snapshot (one node)
        Term acc = leaf(0);
        int i = 1;
        do {
            acc = ops.op("add", List.of(acc, leaf(i++)));
        } while (i < 200 || acc.operands().nodes() > 1);
        Summands large = acc.operands();
        assertThat(large.distinct()).hasSize(i);
        for (int k = 0; k < 50; k++) {
            Term small = ops.op("add", List.of(leaf(1000 + 2 * k), leaf(1001 + 2 * k)));
            Term sum = ops.op("add", List.of(acc, small));
            // the small sum's two operands added above the large multiset: not its hundreds above the small one
            assertThat(sum.operands().builtOn(large)).as("built on the large sum's operands").isTrue();
            assertThat(sum.operands().nodes()).isEqualTo(3);
            assertThat(sum.operands().distinct()).hasSize(i + 2);
        }
    }

    @Test
    void an_operation_is_read_back_from_its_term() {
        Term a = leaf(1);
        Term t = ops.op("tanh", List.of(a));
        assertThat(t.opName()).isEqualTo("tanh");
        assertThat(t.opArgs()).containsExactly(a);
        assertThat(ops.identities().elementwiseArgument(t)).isSameAs(a);
        Term neg = ops.op("neg", List.of(a));
        assertThat(terms.negationOf(neg)).isSameAs(a);
        assertThat(ops.op("neg", List.of(neg))).isSameAs(a);
        assertThat(t.text()).isEqualTo("tanh(x1)");
    }
}
