package org.stagecheck.cuda.compile;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The two compilers of the one generated source (brief, "CUDA backend"): the host C++ compiler
 * for host emulation ({@code g++}, or {@code $STAGECHECK_CXX}) and {@code nvcc} for the device
 * ({@code $STAGECHECK_NVCC}, else on the PATH, else under /usr/local/cuda/bin). Contraction is
 * off on both, so no multiply-add is fused behind the reference's back.
 */
public record Toolchain(String cxx, String nvcc) {
    /** Host flags: no contraction, no fast-math (which would flush subnormals); the optimisation level is added per build. */
    public static final List<String> HOST_FLAGS = List.of("-std=c++17", "-fPIC", "-shared",
            "-ffp-contract=off", "-fno-fast-math", "-fvisibility=hidden", "-w");
    /** Device flags: IEEE division and square root, no flush to zero, no fused multiply-add. */
    public static final List<String> DEVICE_FLAGS = List.of("-fmad=false", "-ftz=false", "-prec-div=true", "-prec-sqrt=true", "-w");
    /** The device architecture whose machine code (SASS) the module holds (Hopper). */
    public static final String ARCH = "sm_90";
    /** The virtual architecture whose PTX the module also holds, for the driver to compile on a newer GPU. */
    public static final String VIRTUAL_ARCH = "compute_90";
    /**
     * What nvcc generates: SASS for {@link #ARCH} and PTX for {@link #VIRTUAL_ARCH}, in one fatbin.
     * The driver runs the SASS on an sm_90 GPU and compiles the PTX just in time on any GPU of
     * compute capability 9.0 or newer.
     */
    public static final List<String> GENCODE = List.of("-gencode", "arch=" + VIRTUAL_ARCH + ",code=[" + ARCH + "," + VIRTUAL_ARCH + "]");

    /** The compilers found in the environment (either may be absent: null). */
    public static Toolchain fromEnvironment() {
        String cxx = firstExecutable(System.getenv("STAGECHECK_CXX"), "g++");
        String nvcc = firstExecutable(System.getenv("STAGECHECK_NVCC"), "nvcc", "/usr/local/cuda/bin/nvcc");
        return new Toolchain(cxx, nvcc);
    }

    static String firstExecutable(String... candidates) {
        for (String c : candidates) {
            if (c == null || c.isBlank()) {
                continue;
            }
            if (c.contains("/")) {
                if (Files.isExecutable(Path.of(c))) {
                    return c;
                }
                continue;
            }
            String path = System.getenv("PATH");
            if (path == null) {
                continue;
            }
            for (String dir : path.split(":")) {
                if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, c))) {
                    return Path.of(dir, c).toString();
                }
            }
        }
        return null;
    }

    /** The first line of {@code compiler --version} that names a version: part of every cache key. */
    public static String version(String compiler) throws CompileException {
        Result r = exec(List.of(compiler, "--version"), null, 60);
        for (String line : r.output().split("\n")) {
            if (line.matches(".*\\d+\\.\\d+.*")) {
                return line.trim();
            }
        }
        return r.output().trim();
    }

    /** What a finished process printed (stdout and stderr together) and its exit status. */
    public record Result(int status, String output) {}

    /** Runs {@code command} in {@code dir}, waiting at most {@code seconds}. */
    public static Result exec(List<String> command, Path dir, long seconds) throws CompileException {
        ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true);
        if (dir != null) {
            pb.directory(dir.toFile());
        }
        try {
            Process p = pb.start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new CompileException(command.getFirst() + " did not finish within " + seconds + " s");
            }
            return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new CompileException("cannot run " + command.getFirst() + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CompileException(command.getFirst() + " was interrupted");
        }
    }
}
