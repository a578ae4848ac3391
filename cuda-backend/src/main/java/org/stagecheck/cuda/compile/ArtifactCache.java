package org.stagecheck.cuda.compile;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import org.stagecheck.backend.MathMode;
import org.stagecheck.cuda.lower.CudaSource;

/**
 * Compiled artifacts keyed by the SHA-256 of the source, the header, the compiler's version line
 * and the flags (brief, "CUDA backend": one source, two compilers, cached). The cache directory
 * is {@code -Dstagecheck.cuda.cache}, else {@code $STAGECHECK_CUDA_CACHE}, else
 * {@code $XDG_CACHE_HOME/stagecheck/cuda}, else {@code ~/.cache/stagecheck/cuda}: never the
 * repository. Each entry is compiled in a temporary directory and moved into place whole, so a
 * reader never sees half an artifact and concurrent compiles of one key are harmless.
 */
public final class ArtifactCache {
    private final Path root;
    private final Toolchain tools;
    private final java.util.Map<String, String> versions = new java.util.HashMap<>();

    public ArtifactCache(Path root, Toolchain tools) {
        this.root = root;
        this.tools = tools;
    }

    /** The cache in the default location with the compilers of the environment. */
    public static ArtifactCache standard() {
        return new ArtifactCache(defaultRoot(), Toolchain.fromEnvironment());
    }

    public static Path defaultRoot() {
        String p = System.getProperty("stagecheck.cuda.cache");
        if (p == null || p.isBlank()) {
            p = System.getenv("STAGECHECK_CUDA_CACHE");
        }
        if (p != null && !p.isBlank()) {
            return Path.of(p);
        }
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("stagecheck").resolve("cuda");
    }

    public Toolchain tools() {
        return tools;
    }

    /** The host-emulation shared library of {@code source}, compiled by the host compiler if not cached. */
    public Path hostLibrary(CudaSource source, MathMode mode, int optLevel) throws CompileException {
        if (tools.cxx() == null) {
            throw new CompileException("no host C++ compiler: install g++ or set STAGECHECK_CXX (host emulation needs one)");
        }
        List<String> flags = new ArrayList<>(Toolchain.HOST_FLAGS);
        flags.add("-O" + optLevel);
        flags.addAll(defines(mode));
        return build(source, tools.cxx(), flags, "libstages.so", dir -> {
            List<String> cmd = new ArrayList<>();
            cmd.add(tools.cxx());
            cmd.addAll(flags);
            cmd.addAll(List.of("-x", "c++", "program.cu", "-o", "libstages.so"));
            return cmd;
        });
    }

    /**
     * The device module of {@code source}, compiled by nvcc if not cached: a fatbin holding SASS for
     * {@link Toolchain#ARCH} and PTX for {@link Toolchain#VIRTUAL_ARCH} ({@link Toolchain#GENCODE}),
     * which {@code cuModuleLoadData} takes as it takes a cubin.
     */
    public Path deviceFatbin(CudaSource source, MathMode mode) throws CompileException {
        if (tools.nvcc() == null) {
            throw new CompileException("no nvcc: install the CUDA toolkit or set STAGECHECK_NVCC");
        }
        List<String> flags = new ArrayList<>(Toolchain.DEVICE_FLAGS);
        flags.addAll(defines(mode));
        flags.addAll(Toolchain.GENCODE);
        return build(source, tools.nvcc(), flags, "module.fatbin", dir -> {
            List<String> cmd = new ArrayList<>();
            cmd.add(tools.nvcc());
            cmd.add("-fatbin");
            cmd.addAll(flags);
            cmd.addAll(List.of("program.cu", "-o", "module.fatbin"));
            return cmd;
        });
    }

    private interface Command {
        List<String> in(Path dir);
    }

    private Path build(CudaSource source, String compiler, List<String> flags, String artifact, Command command)
            throws CompileException {
        String header = CudaSource.header();
        String key = sha256(String.join("\u0000", source.text(), header, version(compiler), String.join(" ", flags), artifact));
        Path entry = root.resolve(key.substring(0, 32));
        Path done = entry.resolve(artifact);
        if (Files.isRegularFile(done)) {
            return done;
        }
        try {
            Files.createDirectories(root);
            Path tmp = Files.createTempDirectory(root, "build-");
            try {
                Files.writeString(tmp.resolve("program.cu"), source.text(), StandardCharsets.UTF_8);
                Files.writeString(tmp.resolve(CudaSource.HEADER), header, StandardCharsets.UTF_8);
                Toolchain.Result r = Toolchain.exec(command.in(tmp), tmp, 1800);
                if (r.status() != 0 || !Files.isRegularFile(tmp.resolve(artifact))) {
                    String out = r.output();
                    throw new CompileException(Path.of(compiler).getFileName() + " rejected the generated source (exit " + r.status()
                            + "): " + (out.length() > 4000 ? out.substring(0, 4000) + "..." : out));
                }
                try {
                    moveIntoPlace(tmp, entry);
                } catch (IOException e) {
                    if (!Files.isRegularFile(done)) {
                        throw e;
                    }
                    // another compile of the same key (another thread or process) won the race: its
                    // artifact is identical. Renaming onto its directory fails with ENOTEMPTY, which
                    // Java reports as a plain FileSystemException, so the entry itself is the test.
                    deleteTree(tmp);
                }
            } catch (CompileException | IOException | RuntimeException e) {
                deleteTree(tmp);
                throw e;
            }
        } catch (IOException e) {
            throw new CompileException("cannot write the compile cache under " + root + ": " + e.getMessage());
        }
        return done;
    }

    private static void moveIntoPlace(Path tmp, Path entry) throws IOException {
        try {
            Files.move(tmp, entry, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, entry);
        }
    }

    private static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a leftover temporary directory is harmless: it is never read as an entry
        }
    }

    private synchronized String version(String compiler) throws CompileException {
        String v = versions.get(compiler);
        if (v == null) {
            v = Toolchain.version(compiler);
            versions.put(compiler, v);
        }
        return v;
    }

    static String sha256(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /** The preprocessor flags that select {@code mode}'s functions in sc_rt.h (docs/cuda.md, "Numerics"). */
    static List<String> defines(MathMode mode) {
        return switch (mode) {
            case PRECISE -> List.of();
            case FAST -> List.of("-DSC_MATH_FAST");
        };
    }
}
