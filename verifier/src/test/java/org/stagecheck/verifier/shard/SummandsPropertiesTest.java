package org.stagecheck.verifier.shard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.stagecheck.proptest.SeededProperty;

/**
 * The counted multisets of canonical sums ({@link Summands}, docs/verifier.md "Canonical sums")
 * against a plain sorted map of id to count: after any sequence of additions and removals
 * (repeats of the last operand, operands seen long before, removals to zero, enough steps to
 * fold the deltas into snapshots many times) the distinct operands, their counts, the total and
 * each count and the newest operand (the anchor of a canonical sum, {@link Terms#flat}) agree
 * with the map, and two multisets built in different orders are the same.
 */
class SummandsPropertiesTest {

    private static List<Term> leaves(Terms terms, int n) {
        List<Term> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(terms.of("leaf:s" + i, "s" + i, "s" + i, new long[] {1, 4}));
        }
        return out;
    }

    private static void assertSame(Summands s, TreeMap<Integer, Long> expected, List<Term> leaves) {
        List<Integer> ids = new ArrayList<>();
        List<Long> counts = new ArrayList<>();
        for (Map.Entry<Integer, Long> e : expected.entrySet()) {
            if (e.getValue() != 0) {
                ids.add(e.getKey());
                counts.add(e.getValue());
            }
        }
        // first, before anything else compacts it: the newest operand as the node knows it or finds it
        assertThat(s.newest() == null ? null : s.newest().id()).as("newest operand").isEqualTo(ids.isEmpty() ? null : ids.getLast());
        assertThat(s.distinct()).extracting(Term::id).containsExactlyElementsOf(ids);
        assertThat(s.counts()).containsExactly(counts.stream().mapToLong(Long::longValue).toArray());
        assertThat(s.total).isEqualTo(counts.stream().mapToLong(Long::longValue).sum());
        for (Term t : leaves) {
            assertThat(s.count(t)).as("count of %s", t.text()).isEqualTo(expected.getOrDefault(t.id(), 0L));
        }
    }

    @SeededProperty(tries = 60)
    void any_sequence_of_additions_and_removals_is_the_multiset_a_map_counts(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        Terms terms = new Terms();
        List<Term> leaves = leaves(terms, 1 + r.nextInt(40));
        TreeMap<Integer, Long> expected = new TreeMap<>();
        Summands s = Summands.empty();
        List<Term> added = new ArrayList<>();
        int steps = r.nextInt(400);
        for (int k = 0; k < steps; k++) {
            long have;
            Term t;
            int move = r.nextInt(12);
            Map.Entry<Integer, Long> newest = expected.entrySet().stream().filter(e -> e.getValue() != 0).reduce((x, y) -> y).orElse(null);
            if (move < 2 && !added.isEmpty()) {
                t = added.get(added.size() - 1); // the last operand again: its count is raised in place
            } else if (move >= 10 && newest != null) {
                t = leaves.get(newest.getKey() - leaves.get(0).id()); // the newest operand, taken away in part or whole
            } else {
                t = leaves.get(r.nextInt(leaves.size()));
            }
            have = expected.getOrDefault(t.id(), 0L);
            // removals take at most what is there, as the checker's callers do
            long count = move == 11 && have > 0 ? -have : move >= 8 && have > 0 ? -(1 + r.nextLong(have)) : 1 + r.nextInt(3);
            s = s.plus(t, count);
            expected.merge(t.id(), count, Long::sum);
            added.add(t);
            if (r.nextInt(25) == 0) {
                assertSame(s, expected, leaves);
            }
        }
        assertSame(s, expected, leaves);
        assertThat(s.nodes()).as("nodes held").isLessThanOrEqualTo(2 * leaves.size() + 20);

        // the same multiset built another way: every operand at once, in the order of the ids' reverse
        Summands again = Summands.empty();
        for (Map.Entry<Integer, Long> e : expected.descendingMap().entrySet()) {
            if (e.getValue() != 0) {
                again = again.plus(leaves.get(e.getKey() - leaves.get(0).id()), e.getValue());
            }
        }
        assertThat(again.sameAs(s)).isTrue();
        assertThat(again.hash).isEqualTo(s.hash);
        if (!leaves.isEmpty()) {
            Summands other = again.plus(leaves.get(0), 1);
            assertThat(other.sameAs(s)).isFalse();
        }
    }

    /**
     * A sum less its newest summand, as a cancellation takes it away (its count asked first): the
     * next newest operand is known from the nodes just below, with no compaction of the whole
     * multiset (a chain {@code acc = (acc + (a_i + b_i)) - b_i} compacted its multiset at every
     * stage to find its anchor, quadratic in the stages).
     */
    @Test
    void taking_away_the_newest_operand_finds_the_next_without_a_compaction() {
        Terms terms = new Terms();
        List<Term> l = leaves(terms, 300);
        Summands s = Summands.empty();
        for (int i = 0; i + 1 < 100; i += 2) {
            Term a = l.get(100 + i);
            Term b = l.get(100 + i + 1);
            s = s.plus(a, 1).plus(b, 1);
            assertThat(s.count(b)).isEqualTo(1);
            s = s.plus(b, -1);
            assertThat(s.newestKnown()).as("newest known after %s", b.text()).isTrue();
            assertThat(s.newest()).isSameAs(a);
            // the newest added, then an older operand, then the newest taken away in whole
            Term older = l.get(i);
            Term c = l.get(200 + i);
            s = s.plus(c, 2).plus(older, 1);
            assertThat(s.count(c)).isEqualTo(2);
            s = s.plus(c, -1);
            assertThat(s.newestKnown()).isTrue();
            assertThat(s.newest()).isSameAs(c); // taken away in part: still there
            s = s.plus(c, -1);
            assertThat(s.newestKnown()).isTrue();
            assertThat(s.newest()).isSameAs(a);
        }
        assertThat(s.distinct()).hasSize(100);
    }

    /**
     * Branches of one large multiset (a sum plus a new operand, stage after stage, then that
     * operand taken away): the count of the newest operand, and whether two branches are one
     * multiset, are read from the few nodes above the base, with no count table and no
     * compaction of the base (both were O(operands) per branch, quadratic over a program).
     */
    @Test
    void branches_of_a_large_multiset_are_counted_and_compared_near_their_top() {
        Terms terms = new Terms();
        List<Term> l = leaves(terms, 2300);
        Summands base = Summands.empty();
        for (int i = 0; i < 2000; i++) {
            base = base.plus(l.get(i), 1 + i % 3);
        }
        for (int k = 0; k < 100; k++) {
            Term a = l.get(2000 + k);
            Term b = l.get(2100 + k);
            Summands q = base.plus(a, 1);
            Summands qb = q.plus(b, 1);
            assertThat(qb.count(b)).isEqualTo(1);
            assertThat(qb.count(l.get(2200 + k))).isZero();
            assertThat(qb.hasCountTable()).as("count table built for a branch").isFalse();
            Summands back = qb.plus(b, -1);
            assertThat(back.newestKnown()).isTrue();
            assertThat(back.newest()).isSameAs(a);
            assertThat(back.sameNear(q)).isTrue();
            assertThat(back.sameAs(q)).isTrue();
            // the same operands reached by another branch of the base: one multiset
            Summands other = base.plus(b, 1).plus(a, 1).plus(b, -1);
            assertThat(other.sameNear(q)).isTrue();
            // a different count of one operand, with the same total: not the same
            Summands shifted = base.plus(l.get(0), -1).plus(a, 1).plus(l.get(1), 1);
            assertThat(shifted.sameNear(q)).isFalse();
            assertThat(shifted.sameAs(q)).isFalse();
        }
        // an old operand's count still reads right, from the count table it then builds
        Summands q = base.plus(l.get(2000), 1);
        assertThat(q.count(l.get(3))).isEqualTo(1);
        assertThat(q.count(l.get(4))).isEqualTo(2);
    }

    /** Whether two multisets are one, read near their tops when their chains meet, always agrees with their compacted operands. */
    @SeededProperty(tries = 40)
    void comparing_branches_near_their_top_agrees_with_their_operands(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        Terms terms = new Terms();
        List<Term> leaves = leaves(terms, 2 + r.nextInt(12));
        Summands base = Summands.empty();
        TreeMap<Integer, Long> baseCounts = new TreeMap<>();
        for (int i = r.nextInt(60); i > 0; i--) {
            Term t = leaves.get(r.nextInt(leaves.size()));
            base = base.plus(t, 1);
            baseCounts.merge(t.id(), 1L, Long::sum);
        }
        List<Summands> branches = new ArrayList<>();
        List<TreeMap<Integer, Long>> expected = new ArrayList<>();
        for (int b = 0; b < 8; b++) {
            Summands s = base;
            TreeMap<Integer, Long> counts = new TreeMap<>(baseCounts);
            for (int k = r.nextInt(6); k > 0; k--) {
                Term t = leaves.get(r.nextInt(leaves.size()));
                long have = counts.getOrDefault(t.id(), 0L);
                long count = have > 0 && r.nextBoolean() ? -(1 + r.nextLong(have)) : 1 + r.nextInt(2);
                assertThat(s.count(t)).isEqualTo(have);
                s = s.plus(t, count);
                counts.merge(t.id(), count, Long::sum);
                counts.values().removeIf(c -> c == 0);
            }
            branches.add(s);
            expected.add(counts);
            assertSame(s, counts, leaves);
        }
        for (int i = 0; i < branches.size(); i++) {
            for (int j = 0; j < branches.size(); j++) {
                boolean equal = expected.get(i).equals(expected.get(j));
                Boolean near = branches.get(i).sameNear(branches.get(j));
                if (near != null) {
                    assertThat(near).as("branches %d and %d near their top", i, j).isEqualTo(equal);
                }
                assertThat(branches.get(i).sameAs(branches.get(j))).isEqualTo(equal);
            }
        }
    }

    @Test
    void an_operand_added_and_removed_again_is_left_out_of_the_snapshot() {
        Terms terms = new Terms();
        List<Term> l = leaves(terms, 3);
        Summands s = Summands.empty().plus(l.get(2), 1).plus(l.get(0), 2).plus(l.get(1), 1).plus(l.get(0), -2);
        assertThat(s.distinct()).containsExactly(l.get(1), l.get(2));
        assertThat(s.counts()).containsExactly(1, 1);
        assertThat(s.single()).isNull();
        assertThat(Summands.empty().plus(l.get(1), 1).single()).isSameAs(l.get(1));
    }

    /**
     * Counts near the top of a long: an operand counted {@code M} in the snapshot, removed, then
     * added {@code M} times again. Every count and total along the way fits a long, and so does
     * the snapshot made of it; only summing the snapshot's {@code M} before the later deltas
     * (newest first) would pass the top.
     */
    @Test
    void a_count_near_the_top_of_a_long_removed_and_added_again_compacts_without_overflow() {
        Terms terms = new Terms();
        List<Term> l = leaves(terms, 2);
        long m = Long.MAX_VALUE - 1;
        Summands snapshot = Summands.empty().plus(l.get(0), m).plus(l.get(1), 1).compact();
        Summands s = snapshot.plus(l.get(0), -m).plus(l.get(1), -1).plus(l.get(0), m);
        assertThat(s.total).isEqualTo(m);
        assertThat(s.distinct()).containsExactly(l.get(0));
        assertThat(s.counts()).containsExactly(m);
        assertThat(s.count(l.get(0))).isEqualTo(m);
        assertThat(s.single()).isNull();
    }
}
