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
