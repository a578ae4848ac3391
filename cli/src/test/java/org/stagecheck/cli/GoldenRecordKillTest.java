package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

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
 * Killing {@code golden record} (SIGKILL, in a separate JVM) at random moments never leaves a
 * half-written case: afterwards the case directory is absent or holds exactly the bytes of a
 * complete record (recording is deterministic, so every complete case is the same), whether or
 * not an older case was there before.
 */
@Tag("slow")
class GoldenRecordKillTest {
    private static final int KILLS = 20;
    /** Under a varying load a run's length varies too: try more kills until half the planned number hit a running record. */
    private static final int MAX_ATTEMPTS = 3 * KILLS;

    @TempDir
    Path tmp;

    @Test
    void aKilledRecordLeavesTheOldCaseOrNone() throws Exception {
        Path model = tmp.resolve("tiny");
        assertThat(CliRunner.run("author", "--model", "tiny", "--cut", "decode", "--ctx", "16", "--out", model.toString()).exit()).isZero();
        Path reference = tmp.resolve("reference");
        long t0 = System.nanoTime();
        Process full = record(reference);
        assertThat(full.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(full.exitValue()).as(new String(full.getErrorStream().readAllBytes())).isZero();
        long fullMillis = (System.nanoTime() - t0) / 1_000_000;
        Map<String, String> complete = files(reference);
        assertThat(complete).containsKey("manifest.json");

        long seed = System.nanoTime();
        Random random = new Random(seed);
        Path parent = Files.createDirectories(tmp.resolve("suite"));
        Path target = parent.resolve("case");
        int killedWhileRunning = 0;
        int completeAfter = 0;
        int attempts = 0;
        for (int i = 0; i < MAX_ATTEMPTS && (i < KILLS || killedWhileRunning < KILLS / 2); i++) {
            attempts++;
            boolean withOld = i % 2 == 0;
            deleteTree(target);
            if (withOld) {
                copyTree(reference, target);
            }
            // the first third of a run is the JVM starting; kill somewhere in the rest (or just after)
            long delay = (long) ((0.3 + 0.75 * random.nextDouble()) * fullMillis);
            Process p = record(target);
            boolean finished = p.waitFor(delay, TimeUnit.MILLISECONDS);
            if (!finished) {
                p.destroyForcibly();
                p.waitFor(30, TimeUnit.SECONDS);
                killedWhileRunning++;
            }
            String where = "seed " + seed + ", kill " + i + " after " + delay + " ms" + (withOld ? ", old case present" : "");
            if (Files.exists(target)) {
                assertThat(files(target)).as(where).isEqualTo(complete);
                completeAfter++;
            }
            try (Stream<Path> s = Files.list(parent)) {
                // only hidden temporary directories may be left beside the case
                assertThat(s.map(x -> x.getFileName().toString()).filter(n -> !n.startsWith("."))).as(where)
                        .allMatch(n -> n.equals("case"));
            }
        }
        assertThat(killedWhileRunning).as("seed " + seed + ": kills that hit a running record").isGreaterThanOrEqualTo(KILLS / 2);
        System.out.printf("golden record kill test: seed %d, full record %d ms, %d of %d kills hit a running record, %d left a complete case%n",
                seed, fullMillis, killedWhileRunning, attempts, completeAfter);
    }

    private Process record(Path out) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
                "org.stagecheck.cli.Main", "golden", "record", tmp.resolve("tiny/program.json").toString(),
                "--inputs", tmp.resolve("tiny").toString(), "--trace", "--update", "--out", out.toString()));
        return new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    }

    private static Map<String, String> files(Path dir) throws IOException {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                out.put(dir.relativize(p).toString(), ProgramCodec.sha256(Files.readAllBytes(p)));
            }
        }
        return out;
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

    private static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> s = Files.walk(p)) {
            for (Path x : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(x);
            }
        }
    }
}
