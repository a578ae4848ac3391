package org.stagecheck.cuda.compile;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The fake CUDA driver's shared library (docs/cuda.md, "The fake driver"): the C source shipped
 * as a resource, built by the machine's C compiler ({@code $STAGECHECK_CC}, else {@code cc},
 * else {@code gcc}) into the compile cache, keyed as the emulation libraries are by the SHA-256
 * of the source, the compiler's version line and the flags. It is built in a temporary directory
 * and moved into place whole, so a reader never loads half a library.
 */
public final class FakeDriverLibrary {
    /** Where the source is on the class path. */
    public static final String RESOURCE = "/org/stagecheck/cuda/fake/libcuda_fake.c";
    static final List<String> FLAGS = List.of("-std=gnu11", "-O1", "-fPIC", "-shared", "-fvisibility=hidden", "-pthread", "-Wall");

    private FakeDriverLibrary() {
    }

    /** The C compiler found in the environment, or null. */
    public static String compiler() {
        return Toolchain.firstExecutable(System.getenv("STAGECHECK_CC"), "cc", "gcc");
    }

    /** The fake driver's library under {@code root}, compiled if not cached. */
    public static Path build(Path root) throws CompileException {
        String cc = compiler();
        if (cc == null) {
            throw new CompileException("no C compiler: install cc (gcc) or set STAGECHECK_CC (the fake CUDA driver is built with it)");
        }
        String source = source();
        String key = ArtifactCache.sha256(String.join("\u0000", source, Toolchain.version(cc), String.join(" ", FLAGS)));
        Path dir = root.resolve("fake-driver");
        Path done = dir.resolve(key.substring(0, 32) + "-libcuda_fake.so");
        if (Files.isRegularFile(done)) {
            return done;
        }
        try {
            Files.createDirectories(dir);
            Path tmp = Files.createTempDirectory(dir, "build-");
            try {
                Files.writeString(tmp.resolve("libcuda_fake.c"), source, StandardCharsets.UTF_8);
                List<String> cmd = new ArrayList<>();
                cmd.add(cc);
                cmd.addAll(FLAGS);
                cmd.addAll(List.of("-o", "libcuda_fake.so", "libcuda_fake.c", "-ldl"));
                Toolchain.Result r = Toolchain.exec(cmd, tmp, 600);
                Path built = tmp.resolve("libcuda_fake.so");
                if (r.status() != 0 || !Files.isRegularFile(built)) {
                    throw new CompileException(Path.of(cc).getFileName() + " rejected the fake CUDA driver (exit " + r.status() + "): "
                            + r.output());
                }
                try {
                    Files.move(built, done, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(built, done, StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                try (var files = Files.list(tmp)) {
                    for (Path f : files.toList()) {
                        Files.deleteIfExists(f);
                    }
                }
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            throw new CompileException("cannot build the fake CUDA driver under " + dir + ": " + e.getMessage());
        }
        return done;
    }

    /** The C source of the fake driver. */
    public static String source() {
        try (InputStream in = FakeDriverLibrary.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the cuda-backend jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
