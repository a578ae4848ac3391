package org.stagecheck.verifier.shard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.stagecheck.proptest.SeededProperty;

/**
 * Canonical sums, maxima and minima ({@link Terms#flat}) against a map of a canonical text of
 * their form (operation, operands with counts by id, folded constant): whatever the sequence of
 * additions and removals that built the multiset (the newest operand taken away and added again,
 * with the multiset's count table or without, one operand once reached as {@code 2 - 1}, an earlier sum's operands built on), whether the
 * constant is newer than every operand, with plain operations sharing the anchors' chains, many
 * terms over one anchor (so chains move to the table) and both analyses building on one table,
 * the same form is one term and any other form another, and each reads back its form.
 */
class HashConsedFlatsPropertiesTest {
    private static final String[] OPS = {"sum", "max", "min"};

    private static String key(String op, TreeMap<Integer, Long> counts, Term constant) {
        StringBuilder k = new StringBuilder(op).append(':');
        counts.forEach((id, c) -> k.append(id).append('x').append(c).append(','));
        return k.append('+').append(constant == null ? "none" : constant.id()).toString();
    }

    private static TreeMap<Integer, Long> countsOf(Summands s) {
        TreeMap<Integer, Long> m = new TreeMap<>();
        List<Term> ts = s.distinct();
        long[] cs = s.counts();
        for (int i = 0; i < ts.size(); i++) {
            m.put(ts.get(i).id(), cs[i]);
        }
        return m;
    }

    @SeededProperty(tries = 60)
    void a_canonical_sum_max_or_min_is_one_term_per_form(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        Terms terms = new Terms();
        List<Term> pool = new ArrayList<>();
        List<Term> constants = new ArrayList<>();
        Map<Integer, Term> byId = new HashMap<>();
        Map<String, Term> byKey = new HashMap<>();
        List<Summands> built = new ArrayList<>();
        int made = 0;
        int steps = 300 + r.nextInt(1200);
        for (int k = 0; k < steps; k++) {
            if (k == steps / 2 && r.nextBoolean()) {
                terms.at(Terms.PARENT, 0);
            }
            int what = r.nextInt(20);
            if (pool.isEmpty() || what == 0) {
                // a new operand (some without a label), the newest of all: the anchor of what is built over it next
                int i = pool.size();
                Term leaf = terms.of("leaf:x" + i, "x" + i, i % 3 == 0 ? "" : "x" + i, new long[] {1, 4});
                pool.add(leaf);
                byId.put(leaf.id(), leaf);
                made++;
                continue;
            }
            if (what == 1) {
                // a new constant: newer than every operand so far
                Term c = terms.unbounded("ci:" + (constants.size() + 1), Integer.toString(constants.size() + 1), 2);
                constants.add(c);
                made++;
                continue;
            }
            if (what == 2) {
                // a plain operation in the same chains
                Term[] args = new Term[1 + r.nextInt(2)];
                for (int i = 0; i < args.length; i++) {
                    args[i] = pool.get(Math.max(0, pool.size() - 1 - r.nextInt(3)));
                }
                String opKey = new Terms.OpKey("f", terms).key(args);
                Term t = terms.op("f", args, "", new Term.Bounds(new long[] {0, 0}, new long[] {1, 4}));
                Term known = byKey.putIfAbsent(opKey, t);
                if (known == null) {
                    made++;
                } else {
                    assertThat(t).as(opKey).isSameAs(known);
                }
                continue;
            }
            String op = OPS[r.nextInt(OPS.length)];
            // the multiset: from nothing, or built on an earlier one (a single operand's made on demand)
            Summands s = built.isEmpty() || r.nextBoolean() ? Summands.empty() : built.get(r.nextInt(built.size()));
            TreeMap<Integer, Long> counts = countsOf(s);
            int moves = r.nextInt(6);
            for (int m = 0; m < moves; m++) {
                int how = r.nextInt(4);
                if (how == 0 && !counts.isEmpty()) {
                    // the newest operand taken away (all of it or part), and maybe added again
                    int newest = counts.lastKey();
                    long have = counts.get(newest);
                    long gone = 1 + r.nextLong(have);
                    if (r.nextBoolean()) {
                        s.count(byId.get(newest)); // as a sum's cancellation asks before it takes away
                    }
                    s = s.plus(byId.get(newest), -gone);
                    counts.merge(newest, -gone, Long::sum);
                    if (r.nextBoolean()) {
                        long back = 1 + r.nextInt(2);
                        s = s.plus(byId.get(newest), back);
                        counts.merge(newest, back, Long::sum);
                    }
                } else if (how == 1 && !counts.isEmpty()) {
                    // any operand taken away (one count)
                    List<Integer> ids = new ArrayList<>(counts.keySet());
                    int id = ids.get(r.nextInt(ids.size()));
                    if (r.nextBoolean()) {
                        s.count(byId.get(id));
                    }
                    s = s.plus(byId.get(id), -1);
                    counts.merge(id, -1L, Long::sum);
                } else {
                    // mostly the newest few operands, so that many terms share one anchor
                    Term t = r.nextInt(3) == 0 ? pool.get(r.nextInt(pool.size())) : pool.get(Math.max(0, pool.size() - 1 - r.nextInt(2)));
                    long c = 1 + r.nextInt(2);
                    s = s.plus(t, c);
                    counts.merge(t.id(), c, Long::sum);
                }
                counts.values().removeIf(c -> c == 0);
            }
            Term constant = constants.isEmpty() || r.nextInt(3) != 0 ? null : constants.get(r.nextInt(constants.size()));
            if (r.nextBoolean()) {
                s.newest(); // the anchor asked before (a compaction) or only by the look-up
            }
            String key = key(op, counts, constant);
            Term t = terms.flat(op, s, constant, new Term.Bounds(new long[] {0, 0}, new long[] {1, 4}), new Term[0]);
            Term known = byKey.putIfAbsent(key, t);
            if (known != null) {
                assertThat(t).as("%s again", key).isSameAs(known);
            } else {
                made++;
                assertThat(terms.size()).as("%s is new", key).isEqualTo(made);
            }
            assertThat(t.flatOp()).isEqualTo(op);
            assertThat(countsOf(t.operands())).as(key).isEqualTo(counts);
            assertThat(t.operands().total).isEqualTo(counts.values().stream().mapToLong(Long::longValue).sum());
            assertThat(t.constant()).isSameAs(constant);
            assertThat(t.formHash()).isEqualTo(Terms.flatHash(op, s, constant));
            assertThat(t.text()).startsWith(op + "(");
            built.add(t.operands());
        }
        assertThat(terms.size()).isEqualTo(made);
    }
}
