package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.author.synth.SynthFamily;
import org.stagecheck.author.synth.SyntheticCheckpoint;
import org.stagecheck.author.synth.SyntheticModel;
import org.stagecheck.spec.json.ProgramCodec;

/**
 * Killing {@code author --model DIR} (SIGKILL, in a separate JVM) at random moments never leaves
 * a half-written output directory: afterwards it is absent or holds exactly the files of a
 * complete authoring (which is deterministic), and the checkpoint directory is untouched.
 */
@Tag("slow")
class CheckpointAuthorKillTest {
    private static final int KILLS = 6;
    private static final int MAX_ATTEMPTS = 3 * KILLS;

    @TempDir
    Path tmp;

    @Test
    void aKilledAuthorLeavesACompleteDirectoryOrNone() throws Exception {
        Path ck = tmp.resolve("ck");
        SyntheticModel model = SyntheticModel.builder(SynthFamily.QWEN2).vocab(512).hidden(128).layers(4).heads(8).kvHeads(4).headDim(16)
                .ffn(256).maxShardBytes(200_000).seed(3).build();
        SyntheticCheckpoint.write(ck, model);
        Map<String, String> checkpoint = files(ck);

        Path reference = tmp.resolve("reference");
        long t0 = System.nanoTime();
        Process full = author(ck, reference);
        assertThat(full.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(full.exitValue()).as(new String(full.getErrorStream().readAllBytes())).isZero();
        long fullMillis = (System.nanoTime() - t0) / 1_000_000;
        Map<String, String> complete = files(reference);
        assertThat(complete).containsKeys("program.json", "certificate.json", "inputs.json", "model.json");

        long seed = System.nanoTime();
        Random random = new Random(seed);
        Path parent = Files.createDirectories(tmp.resolve("outs"));
        Path target = parent.resolve("authored");
        int killedWhileRunning = 0;
        for (int i = 0; i < MAX_ATTEMPTS && (i < KILLS || killedWhileRunning < KILLS / 2); i++) {
            deleteTree(target);
            long delay = (long) ((0.3 + 0.75 * random.nextDouble()) * fullMillis);
            Process p = author(ck, target);
            if (!p.waitFor(delay, TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                p.waitFor(30, TimeUnit.SECONDS);
                killedWhileRunning++;
            }
            String where = "seed " + seed + ", kill " + i + " after " + delay + " ms";
            if (Files.exists(target)) {
                assertThat(files(target)).as(where).isEqualTo(complete);
            }
            try (Stream<Path> s = Files.list(parent)) {
                // only a hidden temporary directory may be left beside the output (the next write removes it)
                assertThat(s.map(x -> x.getFileName().toString()).filter(n -> !n.startsWith("."))).as(where)
                        .allMatch(n -> n.equals("authored"));
            }
        }
        assertThat(killedWhileRunning).as("seed " + seed + ": kills that hit a running author").isGreaterThanOrEqualTo(KILLS / 2);
        assertThat(files(ck)).as("the checkpoint is only read").isEqualTo(checkpoint);
        // a complete authoring after kills removes what they left and writes the same directory
        deleteTree(target);
        Process again = author(ck, target);
        assertThat(again.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(again.exitValue()).isZero();
        assertThat(files(target)).isEqualTo(complete);
        try (Stream<Path> s = Files.list(parent)) {
            assertThat(s.map(x -> x.getFileName().toString())).containsExactly("authored");
        }
    }

    private static Process author(Path ck, Path out) throws IOException {
        return new ProcessBuilder(ChildJvm.command("author", "--model", ck.toString(), "--cut", "decode", "--ctx", "16", "--tp", "2", "--out", out.toString())).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
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

    private static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> s = Files.walk(p)) {
            for (Path q : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(q);
            }
        }
    }
}
