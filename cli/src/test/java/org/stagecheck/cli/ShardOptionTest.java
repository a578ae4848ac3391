package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.stagecheck.golden.Shard;

/** {@code --shard K/N} (from 1) and Bazel's TEST_TOTAL_SHARDS / TEST_SHARD_INDEX (from 0), read into one shard. */
class ShardOptionTest {
    @TempDir
    Path tmp;

    @Test
    void shardKofNCountsFromOne() throws Exception {
        assertThat(ShardOption.resolve("1/4", Map.of()).shard()).isEqualTo(new Shard(1, 4));
        assertThat(ShardOption.resolve("4/4", Map.of()).shard()).isEqualTo(new Shard(4, 4));
        assertThat(ShardOption.resolve("1/1", Map.of()).shard()).isEqualTo(new Shard(1, 1));
        assertThat(ShardOption.resolve(null, Map.of()).shard()).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"0/4", "5/4", "1/0", "0/0", "-1/4", "1", "1/2/3", "a/b", "", " 1/2", "1/ 2", "99999999999/3", "1.0/2"})
    void badShardsAreBadInputNamingTheOption(String bad) {
        assertThatThrownBy(() -> ShardOption.resolve(bad, Map.of())).isInstanceOf(BadInputException.class)
                .hasMessageStartingWith("--shard " + bad + ":");
    }

    @Test
    void bazelsShardIndexCountsFromZeroAndNamesTheStatusFile() throws Exception {
        Path status = tmp.resolve("status");
        ShardOption o = ShardOption.resolve(null, Map.of("TEST_TOTAL_SHARDS", "3", "TEST_SHARD_INDEX", "0", "TEST_SHARD_STATUS_FILE", status.toString()));
        assertThat(o.shard()).isEqualTo(new Shard(1, 3));
        assertThat(o.statusFile()).isEqualTo(status);
        o.touchStatusFile();
        assertThat(status).exists();
        assertThat(ShardOption.resolve(null, Map.of("TEST_TOTAL_SHARDS", "3", "TEST_SHARD_INDEX", "2")).shard()).isEqualTo(new Shard(3, 3));
        assertThat(ShardOption.resolve(null, Map.of("TEST_TOTAL_SHARDS", "3", "TEST_SHARD_INDEX", "2")).statusFile()).isNull();
    }

    @Test
    void theOptionWinsOverBazelsEnvironmentAndThenNoStatusFileIsTouched() throws Exception {
        ShardOption o = ShardOption.resolve("2/2", Map.of("TEST_TOTAL_SHARDS", "3", "TEST_SHARD_INDEX", "0",
                "TEST_SHARD_STATUS_FILE", tmp.resolve("status").toString()));
        assertThat(o.shard()).isEqualTo(new Shard(2, 2));
        o.touchStatusFile();
        assertThat(Files.exists(tmp.resolve("status"))).isFalse();
    }

    @Test
    void badBazelEnvironmentsAreBadInputNamingTheVariable() {
        assertThatThrownBy(() -> ShardOption.resolve(null, Map.of("TEST_TOTAL_SHARDS", "3", "TEST_SHARD_INDEX", "3")))
                .isInstanceOf(BadInputException.class).hasMessageContaining("TEST_SHARD_INDEX=3").hasMessageContaining("0 to");
        assertThatThrownBy(() -> ShardOption.resolve(null, Map.of("TEST_TOTAL_SHARDS", "0", "TEST_SHARD_INDEX", "0")))
                .hasMessageContaining("TEST_TOTAL_SHARDS=0");
        assertThatThrownBy(() -> ShardOption.resolve(null, Map.of("TEST_TOTAL_SHARDS", "x", "TEST_SHARD_INDEX", "0")))
                .hasMessageContaining("TEST_TOTAL_SHARDS=x");
        assertThatThrownBy(() -> ShardOption.resolve(null, Map.of("TEST_TOTAL_SHARDS", "2")))
                .hasMessageContaining("TEST_SHARD_INDEX is not");
        assertThatThrownBy(() -> ShardOption.resolve(null, Map.of("TEST_SHARD_INDEX", "1")))
                .hasMessageContaining("TEST_TOTAL_SHARDS is not");
    }

    @Test
    void aStatusFileThatCannotBeTouchedIsBadInput() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("a-directory"));
        ShardOption o = ShardOption.resolve(null, Map.of("TEST_TOTAL_SHARDS", "2", "TEST_SHARD_INDEX", "1", "TEST_SHARD_STATUS_FILE", dir.toString()));
        assertThatThrownBy(o::touchStatusFile).isInstanceOf(BadInputException.class).hasMessageContaining("TEST_SHARD_STATUS_FILE");
    }
}
