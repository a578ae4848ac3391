package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.author.synth.SynthFamily;
import org.stagecheck.author.synth.SyntheticCheckpoint;
import org.stagecheck.spec.json.ProgramCodec;

/**
 * Writers of the same {@code --out} at once: each writes into a directory of its own, so the
 * output is complete (the bytes of a lone authoring) or absent, never a mix; a writer that
 * loses the race is refused with exit 2; what a killed writer left is removed by the next one,
 * and a running writer's directory is not.
 */
class AuthorConcurrentWritersTest {
    private static final int WRITERS = 4;

    @TempDir
    Path tmp;

    @Test
    void concurrentAuthorsOfOneOutputLeaveOneCompleteDirectory() throws Exception {
        Path ck = tmp.resolve("ck");
        SyntheticCheckpoint.write(ck, CheckpointAuthorCommandTest.tiny(SynthFamily.QWEN2).build());
        for (String model : new String[] {"tiny", ck.toString()}) {
            Path reference = tmp.resolve("reference-" + model.length());
            assertThat(author(model, reference).exit()).isZero();
            Map<String, String> complete = files(reference);
            Path parent = Files.createDirectories(tmp.resolve("outs-" + model.length()));
            for (int round = 0; round < 4; round++) {
                Path target = parent.resolve("x" + round);
                CountDownLatch start = new CountDownLatch(1);
                List<Future<CliRunner>> runs = new ArrayList<>();
                try (ExecutorService pool = Executors.newFixedThreadPool(WRITERS)) {
                    for (int w = 0; w < WRITERS; w++) {
                        runs.add(pool.submit(() -> {
                            start.await();
                            return author(model, target);
                        }));
                    }
                    start.countDown();
                }
                int succeeded = 0;
                for (Future<CliRunner> f : runs) {
                    CliRunner r = f.get();
                    assertThat(r.exit()).as(r.err()).isIn(0, 2);
                    succeeded += r.exit() == 0 ? 1 : 0;
                }
                assertThat(succeeded).as("%s round %d", model, round).isGreaterThanOrEqualTo(1);
                assertThat(files(target)).as("%s round %d", model, round).isEqualTo(complete);
            }
            try (Stream<Path> s = Files.list(parent)) {
                assertThat(s.map(p -> p.getFileName().toString())).as("no temporary directory is left").allMatch(n -> n.matches("x\\d"));
            }
        }
    }

    @Test
    void aKilledWritersDirectoryIsRemovedAndALockedOneIsKept() throws IOException {
        Path target = tmp.resolve("out");
        Path killed = Files.createDirectories(tmp.resolve(".out.k1lled" + OutputPaths.TMP_SUFFIX));
        Files.writeString(killed.resolve(".lock"), "");
        Files.writeString(killed.resolve("program.json"), "half");
        Path running = Files.createDirectories(tmp.resolve(".out.runn1ng" + OutputPaths.TMP_SUFFIX));
        Path otherTarget = Files.createDirectories(tmp.resolve(".out.y.k1lled" + OutputPaths.TMP_SUFFIX));
        Files.writeString(otherTarget.resolve(".lock"), "");
        try (FileChannel ch = FileChannel.open(Files.createFile(running.resolve(".lock")), StandardOpenOption.WRITE)) {
            ch.lock(); // as a running writer holds it (this process: the check must see its own locks too)
            CliRunner r = author("tiny", target);
            assertThat(r.exit()).as(r.err()).isZero();
            assertThat(killed).doesNotExist();
            assertThat(running.resolve(".lock")).exists();
            assertThat(otherTarget).as("the leftover of another target, out.y, is that target's to remove").exists();
        }
    }

    private static CliRunner author(String model, Path out) {
        return CliRunner.run("author", "--model", model, "--cut", "decode", "--ctx", "8", "--tp", "2", "--out", out.toString());
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
}
