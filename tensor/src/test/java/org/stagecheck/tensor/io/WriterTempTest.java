package org.stagecheck.tensor.io;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.Npy;

/**
 * Writers of one target never mix: each has its own temporary, so the file is always one
 * writer's whole content; a killed writer's temporary (unlocked) is removed by the next writer, a
 * running writer's (locked) never is. With one fixed temporary name per target, concurrent
 * writers fail (one deletes or replaces the other's temporary) or install a mixture.
 */
class WriterTempTest {
    @TempDir
    Path dir;

    @Test
    void concurrentNpyWritersOfOneFileEachInstallAWholeFile() throws Exception {
        Path target = dir.resolve("t.npy");
        int writers = 4;
        int rounds = 60;
        List<Tensor> values = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            float[] v = new float[64 * 1024];
            java.util.Arrays.fill(v, w + 1);
            values.add(Tensor.fromFloats(DType.F32, Shape.of(v.length), v));
        }
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        List<Future<?>> done = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            Tensor mine = values.get(w);
            done.add(pool.submit(() -> {
                start.await();
                for (int r = 0; r < rounds; r++) {
                    try {
                        Npy.write(target, mine);
                    } catch (Throwable t) {
                        failures.add(t);
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : done) {
            f.get(120, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertThat(failures).isEmpty();
        Tensor read = Npy.read(target);
        assertThat(values.stream().anyMatch(v -> v.bitEquals(read)))
                .as("the file is one writer's whole tensor").isTrue();
        try (Stream<Path> s = Files.list(dir)) {
            assertThat(s.map(p -> p.getFileName().toString())).containsExactly("t.npy");
        }
    }

    @Test
    void aKilledWritersTemporaryGoesARunningWritersStays() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Process alive = new ProcessBuilder("sleep", "60").start();
        try {
            Path target = dir.resolve("out.json");
            Path killed = dir.resolve(".out.json." + gone.pid() + "-k1lled" + WriterTemp.SUFFIX);
            Files.writeString(killed, "half a report");
            Path killedDir = dir.resolve(".out.json." + gone.pid() + "-d1r" + WriterTemp.SUFFIX);
            Files.createDirectories(killedDir);
            Files.writeString(killedDir.resolve(".lock"), "");
            Path legacy = dir.resolve(".out.json" + WriterTemp.SUFFIX);
            Files.writeString(legacy, "left by an earlier version");
            Path otherTarget = dir.resolve(".out.json.x." + gone.pid() + "-k1lled" + WriterTemp.SUFFIX);
            Files.writeString(otherTarget, "a temporary of out.json.x, not of out.json");
            Path otherProcess = dir.resolve(".out.json." + alive.pid() + "-runn1ng" + WriterTemp.SUFFIX);
            Files.writeString(otherProcess, "another process, alive, is writing this");
            Path locked = dir.resolve(".out.json.l0cked" + WriterTemp.SUFFIX);
            try (FileChannel ch = FileChannel.open(locked, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                    FileLock held = ch.lock()) {
                try (WriterTemp tmp = WriterTemp.file(target); OutputStream out = tmp.stream()) {
                    out.write("{}".getBytes());
                    out.close();
                    tmp.moveTo(target);
                }
                assertThat(Files.readString(target)).isEqualTo("{}");
                assertThat(killed).doesNotExist();
                assertThat(killedDir).doesNotExist();
                assertThat(legacy).doesNotExist();
                assertThat(otherProcess).as("a running process's temporary is never removed").exists();
                assertThat(locked).as("a locked temporary is never removed").exists();
                assertThat(otherTarget).as("another target's temporary is not this writer's to judge").exists();
                assertThat(held.isValid()).isTrue();
            }
        } finally {
            alive.destroyForcibly();
        }
    }

    @Test
    void aDirectoryReplacesTheOldOneWholeAndAnAbandonedAsideGoes() throws Exception {
        Path target = dir.resolve("case");
        Files.createDirectories(target);
        Files.writeString(target.resolve("old.npy"), "old");
        Path asideOfAKilledWriter = dir.resolve(".case.d3ad" + WriterTemp.ASIDE);
        Files.createDirectories(asideOfAKilledWriter);
        try (WriterTemp tmp = WriterTemp.directory(target)) {
            Files.writeString(tmp.path().resolve("new.npy"), "new");
            tmp.moveTo(target);
        }
        try (Stream<Path> s = Files.list(target)) {
            assertThat(s.map(p -> p.getFileName().toString())).containsExactly("new.npy");
        }
        try (Stream<Path> s = Files.list(dir)) {
            assertThat(s.map(p -> p.getFileName().toString())).containsExactly("case");
        }
    }

    @Test
    void aFailedWriteLeavesTheTargetAndNoTemporary() throws Exception {
        Path target = dir.resolve("x.bin");
        Files.writeString(target, "before");
        try (WriterTemp tmp = WriterTemp.file(target); OutputStream out = tmp.stream()) {
            out.write("partial".getBytes());
            // the writer fails here: no moveTo
        }
        assertThat(Files.readString(target)).isEqualTo("before");
        try (Stream<Path> s = Files.list(dir)) {
            assertThat(s.map(p -> p.getFileName().toString())).containsExactly("x.bin");
        }
    }
}
