package org.stagecheck.verifier.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The maps by term id ({@link IdMap}, docs/verifier.md "Scale"): through many growths, with ids
 * that land in the same slots, every id answers what was last put for it and every other id
 * answers nothing, as a {@link HashMap} of boxed ids does.
 */
class IdMapTest {

    @Test
    void answers_as_a_hash_map_through_many_growths() {
        IdMap<String> ids = new IdMap<>();
        Map<Integer, String> expected = new HashMap<>();
        Random random = new Random(7);
        for (int k = 0; k < 20_000; k++) {
            // ids 0 (the first term) to 2^18, some put again: the table grows from 8 slots many times
            int id = k % 5 == 0 ? random.nextInt(100) : random.nextInt(1 << 18);
            String value = "v" + k;
            assertThat(ids.put(id, value)).isEqualTo(expected.put(id, value));
        }
        assertThat(ids.size()).isEqualTo(expected.size());
        for (int id = 0; id < 1 << 18; id++) {
            assertThat(ids.get(id)).isEqualTo(expected.get(id));
        }
    }

    @Test
    void ids_in_one_slot_stay_apart_and_put_if_absent_keeps_the_first() {
        IdMap<Integer> ids = new IdMap<>();
        // multiples of 2^16 share their low bits: the probe runs past several taken slots
        for (int k = 0; k < 64; k++) {
            assertThat(ids.putIfAbsent(k << 16, k)).isNull();
        }
        for (int k = 0; k < 64; k++) {
            assertThat(ids.putIfAbsent(k << 16, -1)).isEqualTo(k);
            assertThat(ids.get(k << 16)).isEqualTo(k);
            assertThat(ids.containsKey((k << 16) + 1)).isFalse();
        }
        assertThat(ids.size()).isEqualTo(64);
    }

    @Test
    void an_empty_map_answers_nothing_and_refuses_what_no_term_has() {
        IdMap<String> ids = new IdMap<>();
        assertThat(ids.isEmpty()).isTrue();
        assertThat(ids.get(0)).isNull();
        assertThat(ids.containsKey(Integer.MAX_VALUE)).isFalse();
        assertThatThrownBy(() -> ids.put(-1, "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ids.put(1, null)).isInstanceOf(NullPointerException.class);
        assertThat(ids.isEmpty()).isTrue();
    }
}
