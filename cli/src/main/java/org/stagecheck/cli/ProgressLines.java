package org.stagecheck.cli;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.stagecheck.golden.bench.Progress;

/**
 * Whether a command that can run long prints progress lines on stderr (docs/cli.md, "Progress"):
 * when stderr is a terminal, never with {@code --json}; the environment variable
 * {@value #ENV} set to {@code 1} asks for them anyway (a CI log), {@code 0} never. The launcher
 * ({@code bin/stagecheck}) passes stderr through a filter, so it says whether its own stderr is a
 * terminal with the system property {@value #TERMINAL}; run directly, the JVM looks at its stderr.
 */
final class ProgressLines {
    /** The environment variable: {@code 1} always, {@code 0} never (still never with --json). */
    static final String ENV = "STAGECHECK_PROGRESS";
    /** The system property the launcher sets to {@code true} when its stderr is a terminal. */
    static final String TERMINAL = "stagecheck.stderrTerminal";
    /** A line at least this often while a phase runs. */
    static final long EVERY_MILLIS = 5_000;

    private ProgressLines() {
    }

    /** Whether progress lines are printed, given the command's {@code --json} and the environment. */
    static boolean enabled(boolean json, String env) {
        if (json || "0".equals(env)) {
            return false;
        }
        return "1".equals(env) || Boolean.getBoolean(TERMINAL) || stderrIsTerminal();
    }

    /** Progress lines to {@code err} opening with {@code name}, or none (see {@link #enabled}). */
    static Progress to(PrintWriter err, String name, boolean json) {
        return enabled(json, System.getenv(ENV)) ? Progress.to(err, name, EVERY_MILLIS) : Progress.silent();
    }

    /** Whether file descriptor 2 is a terminal: where the system shows it (Linux), a tty or pseudo-terminal. */
    private static boolean stderrIsTerminal() {
        try {
            String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty") || target.equals("/dev/console");
        } catch (java.io.IOException | UnsupportedOperationException | SecurityException e) {
            return false;
        }
    }
}
