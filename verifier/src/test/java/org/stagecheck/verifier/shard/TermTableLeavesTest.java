package org.stagecheck.verifier.shard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The table of terms made by their key ({@link TermTable#findLeaf}, docs/verifier.md "Scale"): through many
 * growths, every key finds the one term made with it, keys whose hashes collide are told apart
 * by the key itself, and a key never made finds nothing.
 */
class TermTableLeavesTest {
    private final Terms terms = new Terms();

    private Term leaf(String key) {
        return terms.of(key, key, "x", new long[] {0}, new long[] {8});
    }

    @Test
    void every_key_finds_its_one_term_through_many_growths() {
        List<Term> made = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            made.add(leaf("leaf:x" + i));
        }
        assertThat(made).doesNotHaveDuplicates();
        int size = terms.size();
        for (int i = 0; i < 20_000; i++) {
            assertThat(leaf("leaf:x" + i)).isSameAs(made.get(i));
        }
        assertThat(terms.size()).isEqualTo(size);
    }

    @Test
    void keys_with_one_hash_are_told_apart_by_the_key() {
        // "Aa" and "BB" have the same String hash code, so every concatenation of them does too
        List<String> colliding = new ArrayList<>();
        for (int bits = 0; bits < 1 << 11; bits++) {
            StringBuilder key = new StringBuilder("leaf:");
            for (int b = 0; b < 11; b++) {
                key.append((bits >> b & 1) == 0 ? "Aa" : "BB");
            }
            colliding.add(key.toString());
        }
        assertThat(colliding.stream().mapToInt(String::hashCode).distinct().count()).isOne();
        List<Term> made = colliding.stream().map(this::leaf).toList();
        assertThat(made).doesNotHaveDuplicates();
        for (int i = 0; i < colliding.size(); i++) {
            assertThat(leaf(colliding.get(i))).isSameAs(made.get(i));
            assertThat(made.get(i).leafKey()).isEqualTo(colliding.get(i));
        }
    }

    @Test
    void a_key_never_made_finds_nothing() {
        TermTable table = new TermTable();
        for (int i = 0; i < 5000; i++) {
            table.add((Term.Leaf) leaf("leaf:y" + i));
        }
        assertThat(table.findLeaf("leaf:y4999")).isNotNull();
        assertThat(table.findLeaf("leaf:y5000")).isNull();
        assertThat(table.findLeaf("leaf:z1")).isNull();
    }
}
