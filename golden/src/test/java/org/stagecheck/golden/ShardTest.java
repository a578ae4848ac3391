package org.stagecheck.golden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** Shards of a suite: disjoint, covering it exactly once, the same whatever the order the cases were given in. */
class ShardTest {
    private static final List<Path> SUITE = List.of(Path.of("cases/e"), Path.of("cases/a"), Path.of("cases/d"), Path.of("other/b"),
            Path.of("cases/c"), Path.of("cases/f"), Path.of("cases/g"));

    @Test
    void theShardsOfASuiteCoverItExactlyOnceForEveryCount() {
        for (int n = 1; n <= 5; n++) {
            List<Path> union = new ArrayList<>();
            for (int k = 1; k <= n; k++) {
                Shard.Selection s = new Shard(k, n).select(SUITE);
                assertThat(s.suiteCases()).isEqualTo(SUITE.size());
                // round robin over 7 sorted cases: shard k takes ceil((7 - (k - 1)) / n)
                assertThat(s.cases()).as("shard %d/%d", k, n).hasSize((SUITE.size() - k + n) / n);
                union.addAll(s.cases());
            }
            assertThat(union).as("%d shards", n).hasSize(SUITE.size()).containsExactlyInAnyOrderElementsOf(SUITE);
        }
    }

    @Test
    void casesAreDealtInSortedPathOrderAndKeepTheSuitesOrder() {
        // sorted: cases/a, cases/c, cases/d, cases/e, cases/f, cases/g, other/b
        assertThat(new Shard(1, 3).select(SUITE).cases()).containsExactly(Path.of("cases/e"), Path.of("cases/a"), Path.of("other/b"));
        assertThat(new Shard(2, 3).select(SUITE).cases()).containsExactly(Path.of("cases/c"), Path.of("cases/f"));
        assertThat(new Shard(3, 3).select(SUITE).cases()).containsExactly(Path.of("cases/d"), Path.of("cases/g"));
        List<Path> reversed = new ArrayList<>(SUITE);
        java.util.Collections.reverse(reversed);
        assertThat(new Shard(2, 3).select(reversed).cases()).containsExactly(Path.of("cases/f"), Path.of("cases/c"));
        assertThat(new Shard(2, 3).select(List.of(Path.of("./cases/c"), Path.of("cases/a"))).cases()).containsExactly(Path.of("./cases/c"));
    }

    @Test
    void moreShardsThanCasesLeavesSomeEmptyAndTheSummarySaysSo() {
        Shard.Selection s = new Shard(5, 5).select(SUITE.subList(0, 3));
        assertThat(s.cases()).isEmpty();
        assertThat(s.describe()).isEqualTo("shard 5/5: 0 of 3 case(s)");
        assertThat(new Shard(1, 2).select(SUITE).describe()).isEqualTo("shard 1/2: 4 of 7 case(s)");
    }

    @Test
    void aShardOutsideOneToNIsRefused() {
        assertThatThrownBy(() -> new Shard(0, 3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Shard(4, 3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Shard(1, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
