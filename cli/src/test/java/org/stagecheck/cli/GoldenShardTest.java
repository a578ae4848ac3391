package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code golden check --shard K/N} and Bazel's sharding environment: each shard checks a disjoint
 * part of the suite, together they check every case exactly once, and the summary says which shard
 * ran and how many cases it took.
 */
class GoldenShardTest {
    private static final List<String> CASES = List.of("c1", "c2", "c3", "c4", "c5");

    @TempDir
    Path tmp;

    private Path suite;

    /** A suite of five cases (one recorded case, copied under five names: checking is what is sharded). */
    @BeforeEach
    void suiteOfFiveCases() throws IOException {
        Path one = tmp.resolve("one");
        CliRunner rec = CliRunner.run("golden", "record", "../examples/elementwise-chain.json", "--random", "2", "--out", one.toString());
        assertThat(rec.exit()).as(rec.err()).isZero();
        suite = tmp.resolve("suite");
        for (String c : CASES) {
            copyTree(one, suite.resolve(c));
        }
    }

    private static List<String> checkedCases(JsonNode report) {
        List<String> names = new ArrayList<>();
        report.get("cases").forEach(c -> names.add(c.get("name").asText()));
        return names;
    }

    @Test
    void theShardsCoverTheSuiteExactlyOnceForOneToFiveShards() throws Exception {
        for (int n = 1; n <= 5; n++) {
            List<String> union = new ArrayList<>();
            for (int k = 1; k <= n; k++) {
                CliRunner r = CliRunner.run("golden", "check", suite.toString(), "--shard", k + "/" + n, "--json");
                assertThat(r.exit()).as(r.out() + r.err()).isZero();
                JsonNode j = new ObjectMapper().readTree(r.out());
                List<String> mine = checkedCases(j);
                assertThat(j.at("/shard/number").asInt()).isEqualTo(k);
                assertThat(j.at("/shard/count").asInt()).isEqualTo(n);
                assertThat(j.at("/shard/cases").asInt()).isEqualTo(mine.size());
                assertThat(j.at("/shard/suiteCases").asInt()).isEqualTo(CASES.size());
                union.addAll(mine);
            }
            assertThat(union).as("%d shards", n).containsExactlyInAnyOrderElementsOf(CASES);
        }
    }

    @Test
    void theSummaryLineSaysWhichShardRanAndHowManyCasesItTook() {
        CliRunner r = CliRunner.run("golden", "check", suite.toString(), "--shard", "2/3");
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        // sorted c1..c5, dealt round robin: shard 2 of 3 takes c2 and c5
        assertThat(r.out()).contains("PASS      c2").contains("PASS      c5").doesNotContain("c1").doesNotContain("c3").doesNotContain("c4");
        assertThat(r.out().lines().reduce((a, b) -> b).orElseThrow())
                .isEqualTo("total: 2 case(s), 2 passed, 0 failed, 0 stale, 0 bad input; shard 2/3: 2 of 5 case(s)");
        CliRunner whole = CliRunner.run("golden", "check", suite.toString());
        assertThat(whole.out()).contains("total: 5 case(s), 5 passed").doesNotContain("shard");
    }

    @Test
    void aShardOfASuiteReadsEachCasesActualFilesFromItsOwnSubdirectory() throws Exception {
        Path act = tmp.resolve("act");
        for (String c : CASES) {
            assertThat(CliRunner.run("run", "../examples/elementwise-chain.json", "--inputs", suite.resolve(c).toString(),
                    "--out", act.resolve(c).toString()).exit()).isZero();
        }
        // shard 5/5 takes one case, c5: its files are act/c5/, as in the whole suite
        CliRunner r = CliRunner.run("golden", "check", suite.toString(), "--shard", "5/5", "--actual", act.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("PASS      c5  (files " + act.resolve("c5") + ")");
    }

    @Test
    void badShardsAreExitTwo() throws Exception {
        for (String bad : List.of("0/3", "4/3", "1/0", "3", "a/b", "-1/3", "1/3/4")) {
            CliRunner r = CliRunner.run("golden", "check", suite.toString(), "--shard", bad);
            assertThat(r.exit()).as(bad).isEqualTo(2);
            assertThat(r.err()).as(bad).contains("--shard " + bad).doesNotContain("Exception");
            CliRunner j = CliRunner.run("golden", "check", suite.toString(), "--shard", bad, "--json");
            assertThat(new ObjectMapper().readTree(j.out()).get("exitCode").asInt()).isEqualTo(2);
        }
    }

    /** Bazel runs the test binary once per shard with TEST_SHARD_INDEX from 0 and asks for TEST_SHARD_STATUS_FILE to be touched. */
    @Test
    @Tag("slow") // three JVMs
    void bazelsShardingEnvironmentSplitsTheSuiteAndTouchesTheStatusFile() throws Exception {
        List<String> union = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Path status = tmp.resolve("status-" + i);
            ProcessBuilder pb = new ProcessBuilder(ChildJvm.command("golden", "check", suite.toString(), "--json"));
            pb.environment().putAll(Map.of("TEST_TOTAL_SHARDS", "3", "TEST_SHARD_INDEX", Integer.toString(i),
                    "TEST_SHARD_STATUS_FILE", status.toString()));
            Process p = pb.redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String out = new String(p.getInputStream().readAllBytes());
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as(out).isZero();
            JsonNode j = new ObjectMapper().readTree(out);
            assertThat(j.at("/shard/number").asInt()).isEqualTo(i + 1);
            assertThat(j.at("/shard/count").asInt()).isEqualTo(3);
            assertThat(status).exists();
            union.addAll(checkedCases(j));
        }
        assertThat(union).containsExactlyInAnyOrderElementsOf(CASES);
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.toList()) {
                Path q = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(q);
                } else {
                    Files.copy(p, q);
                }
            }
        }
    }
}
