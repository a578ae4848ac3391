package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.spec.json.ProgramCodec;

/**
 * Killing {@code run --trace} (SIGKILL, in a separate JVM) at random moments never leaves a
 * half-written file in its output directory: every visible file is byte for byte the one a
 * complete run writes (the run is deterministic), the index {@code tensors.json} (written last)
 * names only files that are complete, and the next run removes the hidden temporary files a kill
 * left. Each file is written to a temporary name and renamed into place (docs/format.md, "Output paths").
 */
@Tag("slow")
class RunKillTest {
    private static final int KILLS = 6;
    private static final int MAX_ATTEMPTS = 3 * KILLS;

    @TempDir
    Path tmp;

    @Test
    void aKilledRunLeavesOnlyCompleteFiles() throws Exception {
        Path model = tmp.resolve("tiny");
        assertThat(CliRunner.run("author", "--model", "tiny", "--cut", "decode", "--ctx", "16", "--out", model.toString()).exit()).isZero();
        Path reference = tmp.resolve("reference");
        long t0 = System.nanoTime();
        Process full = run(reference);
        assertThat(full.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(full.exitValue()).as(new String(full.getErrorStream().readAllBytes())).isZero();
        long fullMillis = (System.nanoTime() - t0) / 1_000_000;
        Map<String, String> complete = visibleFiles(reference);
        assertThat(complete).containsKey("tensors.json");

        long seed = System.nanoTime();
        Random random = new Random(seed);
        int killedWhileRunning = 0;
        int attempts = 0;
        for (int i = 0; i < MAX_ATTEMPTS && (i < KILLS || killedWhileRunning < KILLS / 2); i++) {
            attempts++;
            Path out = tmp.resolve("out" + i);
            long delay = (long) ((0.3 + 0.75 * random.nextDouble()) * fullMillis);
            Process p = run(out);
            if (!p.waitFor(delay, TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                p.waitFor(30, TimeUnit.SECONDS);
                killedWhileRunning++;
            }
            String where = "seed " + seed + ", kill " + i + " after " + delay + " ms";
            if (!Files.exists(out)) {
                continue;
            }
            Map<String, String> left = visibleFiles(out);
            for (var e : left.entrySet()) {
                assertThat(complete).as(where + ": " + e.getKey()).containsEntry(e.getKey(), e.getValue());
            }
            if (left.containsKey("tensors.json")) {
                JsonNode index = new ObjectMapper().readTree(out.resolve("tensors.json").toFile());
                for (var named : index.get("tensors").properties()) {
                    assertThat(left).as(where + ": the index names " + named.getValue().asText()).containsKey(named.getValue().asText());
                }
            }
            // the next run into the same directory cleans what the kill left and completes it
            Process again = run(out);
            assertThat(again.waitFor(120, TimeUnit.SECONDS)).isTrue();
            assertThat(again.exitValue()).as(where).isZero();
            assertThat(visibleFiles(out)).as(where).isEqualTo(complete);
            assertThat(HostileInputTest.leftovers(out)).as(where).isEmpty();
        }
        assertThat(killedWhileRunning).as("seed " + seed + ": kills that hit a running run").isGreaterThanOrEqualTo(KILLS / 2);
        System.out.printf("run kill test: seed %d, full run %d ms, %d of %d kills hit a running run%n", seed, fullMillis, killedWhileRunning, attempts);
    }

    private Process run(Path out) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "--add-modules", "jdk.incubator.vector", "-cp", System.getProperty("java.class.path"),
                "org.stagecheck.cli.Main", "run", tmp.resolve("tiny/program.json").toString(),
                "--inputs", tmp.resolve("tiny").toString(), "--trace", "--out", out.toString()));
        return new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }

    /** Files not starting with a dot (the temporary ones do), with a digest of their bytes. */
    private static Map<String, String> visibleFiles(Path dir) throws IOException {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.filter(Files::isRegularFile).filter(x -> !x.getFileName().toString().startsWith(".")).toList()) {
                out.put(dir.relativize(p).toString(), ProgramCodec.sha256(Files.readAllBytes(p)));
            }
        }
        return out;
    }
}
