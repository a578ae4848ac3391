package org.stagecheck.verifier.shard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.stagecheck.proptest.SeededProperty;

/**
 * Plain operations ({@link Terms#op}) against a map of their key text: whatever the order in
 * which they are built, in either analysis, with 0 to 4 arguments, repeats among them, and many
 * operations sharing their newest argument (past the chain kept per argument, so some are found
 * in the table), the same operation over the same terms is one term and any other is another;
 * each reads back its operation and arguments, and its key and hash are those of its form.
 */
class HashConsedOperationsPropertiesTest {
    private static final String[] NAMES = {"f", "g", "div", "select"};

    @SeededProperty(tries = 40)
    void an_operation_is_one_term_per_name_and_argument_terms(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        Terms terms = new Terms();
        List<Term> pool = new ArrayList<>();
        int leaves = 1 + r.nextInt(6);
        for (int i = 0; i < leaves; i++) {
            pool.add(terms.of("leaf:x" + i, "x" + i, "x" + i, new long[] {1, 4}));
        }
        Map<String, Term> byKey = new HashMap<>();
        // how often a new operation becomes an argument: never (every operation is over the
        // leaves, so hundreds share one newest argument) up to mostly
        int grows = r.nextInt(4);
        int steps = 200 + r.nextInt(1500);
        for (int k = 0; k < steps; k++) {
            if (k == steps / 2) {
                terms.at(Terms.PARENT, 0); // the other analysis builds on the same table
            }
            String name = NAMES[r.nextInt(NAMES.length)];
            Term[] args = new Term[r.nextInt(5)];
            // mostly the few newest terms, so that many operations share their newest argument
            for (int i = 0; i < args.length; i++) {
                args[i] = r.nextInt(3) == 0 ? pool.get(r.nextInt(pool.size())) : pool.get(Math.max(0, pool.size() - 1 - r.nextInt(3)));
            }
            String key = new Terms.OpKey(name, terms).key(args);
            Term t = terms.op(name, args.clone(), "", new Term.Bounds(new long[] {0, 0}, new long[] {1, 4}));
            Term known = byKey.putIfAbsent(key, t);
            if (known != null) {
                assertThat(t).as("%s again", key).isSameAs(known);
            } else {
                assertThat(byKey.values().stream().filter(x -> x == t).count()).as("%s is new", key).isEqualTo(1);
                if (r.nextInt(4) < grows) {
                    pool.add(t);
                }
            }
            assertThat(t.key()).isEqualTo(key);
            assertThat(t.opName()).isEqualTo(name);
            assertThat(t.opArgs()).containsExactly(args);
            assertThat(t.sources()).containsExactly(args);
            assertThat(t.formHash()).isEqualTo(Terms.OpKey.hash(name, args));
            Term.Op o = (Term.Op) t;
            assertThat(o.arity()).isEqualTo(args.length);
            for (int i = 0; i < args.length; i++) {
                assertThat(o.arg(i)).isSameAs(args[i]);
            }
            assertThat(o.sameArgs(args)).isTrue();
            assertThat(o.sameArgs(java.util.Arrays.copyOf(args, args.length + 1))).isFalse();
        }
        assertThat(terms.size()).isEqualTo(leaves + byKey.size());
    }
}
