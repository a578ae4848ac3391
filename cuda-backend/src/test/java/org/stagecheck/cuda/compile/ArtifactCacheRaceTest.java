package org.stagecheck.cuda.compile;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.backend.MathMode;
import org.stagecheck.cuda.lower.CudaSource;

/**
 * Two compiles of one key at once (two test JVMs, two CI jobs sharing a cache) both succeed with
 * the one entry: the loser's rename onto the winner's directory fails with ENOTEMPTY, which Java
 * reports as a plain {@code FileSystemException}, and the cache must take the winner's artifact
 * instead of failing the run.
 */
class ArtifactCacheRaceTest {
    /**
     * A stand-in host compiler: it marks that it started, waits until the other compile has started
     * too (so the two always overlap), then writes its {@code -o} file.
     */
    private static final String COMPILER = """
            #!/bin/sh
            if [ "$1" = "--version" ]; then echo "racing-cc 1.0"; exit 0; fi
            out=""; prev=""
            for a in "$@"; do if [ "$prev" = "-o" ]; then out="$a"; fi; prev="$a"; done
            touch "../started.$$"
            i=0
            while [ "$(ls ../started.* | wc -l)" -lt 2 ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done
            echo "built by $$" > "$out"
            """;

    @Test
    void twoCompilesOfOneKeyAtOnceBothGetTheEntry(@TempDir Path dir) throws Exception {
        Path cc = dir.resolve("racing-cc");
        Files.writeString(cc, COMPILER);
        Files.setPosixFilePermissions(cc, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path root = dir.resolve("cache");
        CudaSource source = new CudaSource("// one source\n", List.of());
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            // one cache object each, as two processes have
            Future<Path> a = pool.submit(() -> new ArtifactCache(root, new Toolchain(cc.toString(), null)).hostLibrary(source, MathMode.PRECISE, 2));
            Future<Path> b = pool.submit(() -> new ArtifactCache(root, new Toolchain(cc.toString(), null)).hostLibrary(source, MathMode.PRECISE, 2));
            Path pa = a.get();
            Path pb = b.get();
            assertThat(pa).isEqualTo(pb);
            assertThat(Files.readString(pa)).startsWith("built by ");
        } finally {
            pool.shutdownNow();
        }
        try (var entries = Files.list(root)) {
            assertThat(entries.map(p -> p.getFileName().toString()).filter(n -> !n.startsWith("started."))).as("no temporary left").hasSize(1);
        }
    }
}
