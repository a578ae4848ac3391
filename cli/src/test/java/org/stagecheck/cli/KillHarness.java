package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.stagecheck.spec.json.ProgramCodec;

/**
 * Kills a command that writes a directory (SIGKILL, in a separate JVM) at random moments and
 * checks that it is written all or nothing: afterwards the directory is absent, or the one it had
 * before, or byte for byte the complete result (every command checked is deterministic, so every
 * complete result is the same); only hidden leftovers may stand beside it, and a rerun into the
 * same place succeeds, completes it, and removes them.
 *
 * @param name       the command, for messages
 * @param command    the command line's arguments for an output directory
 * @param replaces   whether the command replaces an earlier complete result (then half the kills
 *                   find one in place); when not, a rerun is tried only where the kill left none
 * @param kills      how many kills must hit a running command
 */
record KillHarness(String name, Function<Path, List<String>> command, boolean replaces, int kills) {
    /** Under a varying load a run's length varies too: try more kills until half the planned number hit a running command. */
    private int maxAttempts() {
        return 3 * kills;
    }

    /** Runs the check in {@code scratch}; returns the summary line it printed. */
    String check(Path scratch) throws Exception {
        Path reference = scratch.resolve("reference");
        long t0 = System.nanoTime();
        finish(start(reference, ProcessBuilder.Redirect.PIPE), "the complete " + name);
        long fullMillis = (System.nanoTime() - t0) / 1_000_000;
        Map<String, String> complete = files(reference);

        long seed = System.nanoTime();
        Random random = new Random(seed);
        Path parent = Files.createDirectories(scratch.resolve("place"));
        Path target = parent.resolve("out");
        int killedWhileRunning = 0;
        int completeAfter = 0;
        int reruns = 0;
        int attempts = 0;
        for (int i = 0; i < maxAttempts() && (i < kills || killedWhileRunning < kills / 2); i++) {
            attempts++;
            boolean withOld = replaces && i % 2 == 0;
            deleteTree(target); // hidden leftovers beside it stay, for the next command to clean
            if (withOld) {
                copyTree(reference, target);
            }
            // the first third of a run is the JVM starting; kill somewhere in the rest (or just after)
            long delay = (long) ((0.3 + 0.75 * random.nextDouble()) * fullMillis);
            Process p = start(target, ProcessBuilder.Redirect.DISCARD);
            boolean finished = p.waitFor(delay, TimeUnit.MILLISECONDS);
            if (!finished) {
                p.destroyForcibly();
                p.waitFor(30, TimeUnit.SECONDS);
                killedWhileRunning++;
            }
            String where = name + ": seed " + seed + ", kill " + i + " after " + delay + " ms" + (withOld ? ", an earlier result in place" : "");
            if (finished) {
                assertThat(p.exitValue()).as(where + ": a run that ended before its kill succeeded").isZero();
            }
            if (Files.exists(target)) {
                assertThat(files(target)).as(where).isEqualTo(complete);
                completeAfter++;
            }
            assertThat(visibleBeside(parent)).as(where + ": only hidden leftovers beside the output").allMatch(n -> n.equals("out"));
            if (replaces || !Files.exists(target)) {
                finish(start(target, ProcessBuilder.Redirect.PIPE), where + ", the rerun");
                reruns++;
                assertThat(files(target)).as(where + ", the rerun").isEqualTo(complete);
                try (Stream<Path> s = Files.list(parent)) {
                    assertThat(s.map(x -> x.getFileName().toString())).as(where + ": the rerun cleans what the kill left").containsExactly("out");
                }
            }
        }
        assertThat(killedWhileRunning).as(name + ": seed " + seed + ": kills that hit a running command").isGreaterThanOrEqualTo(kills / 2);
        String summary = String.format("%s kill test: seed %d, complete run %d ms, %d of %d kills hit a running command, %d left a complete result, %d reruns",
                name, seed, fullMillis, killedWhileRunning, attempts, completeAfter, reruns);
        System.out.println(summary);
        return summary;
    }

    private Process start(Path out, ProcessBuilder.Redirect err) throws IOException {
        return new ProcessBuilder(ChildJvm.command(List.of(), command.apply(out))).redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(err).start();
    }

    private static void finish(Process p, String what) throws Exception {
        byte[] err = p.getErrorStream().readAllBytes(); // to its end: the command has exited
        assertThat(p.waitFor(180, TimeUnit.SECONDS)).as(what).isTrue();
        assertThat(p.exitValue()).as(what + ": " + new String(err)).isZero();
    }

    private static List<String> visibleBeside(Path parent) throws IOException {
        try (Stream<Path> s = Files.list(parent)) {
            return s.map(x -> x.getFileName().toString()).filter(n -> !n.startsWith(".")).toList();
        }
    }

    /** Every file under {@code dir}, hidden ones too, with a digest of its bytes. */
    static Map<String, String> files(Path dir) throws IOException {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                out.put(dir.relativize(p).toString(), ProgramCodec.sha256(Files.readAllBytes(p)));
            }
        }
        return out;
    }

    static void copyTree(Path from, Path to) throws IOException {
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

    static void deleteTree(Path p) throws IOException {
        OutputPaths.deleteTree(p);
    }
}
