package org.stagecheck.cli;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the stagecheck command line as a child process, the way a user runs it, and measures what
 * the user sees: the wall time from start to exit and the peak memory. The peak comes from
 * {@code /proc/<pid>/status} (Linux), polled every {@link #POLL_MILLIS} ms while the child runs:
 * {@code VmHWM}, the kernel's own high-water mark of the resident set (every page, a mapped file's
 * included), and the largest {@code RssAnon} seen (the process's own memory: the Java heap and the
 * rest, without the file pages a mapping shares with the page cache). {@code VmHWM} never falls,
 * so the last poll before the exit misses at most the growth of the last few milliseconds;
 * {@code RssAnon} is a sampled maximum. The CPU time (user and system, every thread) is the last
 * one seen the same way: on a machine shared with other work it says what the step costs where
 * the wall time says how long it waited too. Where there is no {@code /proc}, both are -1.
 */
final class ChildMeasure {
    static final long POLL_MILLIS = 10;

    /**
     * One child's outcome: exit status, wall time, CPU time (user and system, all threads, as last
     * seen while it ran; -1 unknown), peak resident set and peak anonymous memory (KiB, -1 unknown), its output.
     */
    record Outcome(int exit, long wallNanos, long cpuNanos, long peakRssKiB, long peakAnonKiB, String stdout, String stderr) {
    }

    private final List<String> launcher;

    /** Children started as {@code launcher} followed by the subcommand's arguments. */
    ChildMeasure(List<String> launcher) {
        this.launcher = List.copyOf(launcher);
    }

    /**
     * The command that starts this JVM's stagecheck again: the same java, the same JVM options (heap,
     * GC, {@code STAGECHECK_JAVA_OPTS}: the launcher's, as this process got them), the same class path.
     */
    static List<String> sameAsThisProcess() {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(Main.class.getName());
        return cmd;
    }

    List<String> launcher() {
        return launcher;
    }

    /** Runs {@code stagecheck ARGS...} to its end; its output is kept (in files under {@code scratch}, not in pipes that could fill). */
    Outcome run(Path scratch, List<String> args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(launcher);
        cmd.addAll(args);
        Path out = Files.createTempFile(scratch, "child", ".out");
        Path err = Files.createTempFile(scratch, "child", ".err");
        try {
            long t0 = System.nanoTime();
            Process p = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(nullDevice()))
                    .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            Path status = Path.of("/proc", Long.toString(p.pid()), "status");
            long hwm = -1;
            long anon = -1;
            long cpu = -1;
            try {
                while (p.isAlive()) {
                    cpu = p.info().totalCpuDuration().map(java.time.Duration::toNanos).orElse(cpu);
                    long[] now = read(status);
                    hwm = Math.max(hwm, now[0]);
                    anon = Math.max(anon, now[1]);
                    p.waitFor(POLL_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
                }
            } finally {
                if (p.isAlive()) {
                    p.destroyForcibly(); // interrupted: no child outlives its measure
                }
            }
            int exit = p.waitFor();
            long wall = System.nanoTime() - t0;
            return new Outcome(exit, wall, cpu, hwm, anon, Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    private static java.io.File nullDevice() {
        return new java.io.File(System.getProperty("os.name").startsWith("Windows") ? "NUL" : "/dev/null");
    }

    /** {@code VmHWM} and {@code RssAnon} in KiB, each -1 when unknown (no /proc, or the process just ended). */
    static long[] read(Path status) {
        long[] v = {-1, -1};
        try {
            for (String line : Files.readAllLines(status, StandardCharsets.US_ASCII)) {
                if (line.startsWith("VmHWM:")) {
                    v[0] = kib(line);
                } else if (line.startsWith("RssAnon:")) {
                    v[1] = kib(line);
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone between the poll and the read, or not Linux: unknown, not an error
        }
        return v;
    }

    private static long kib(String line) {
        String[] parts = line.substring(line.indexOf(':') + 1).trim().split("\\s+");
        return Long.parseLong(parts[0]);
    }
}
