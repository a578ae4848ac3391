package org.stagecheck.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * The command line that runs stagecheck's {@link Main} in a JVM of its own, for the tests that
 * need a process (a kill, an environment variable, a file descriptor of its own). Such a JVM runs
 * one command of a few seconds, so it starts the way short runs are cheapest on a small machine:
 * the client compiler only (the optimising compiler's work would not pay back in seconds), the
 * serial collector (no collector threads), and without the Vector API module (whose kernels are
 * fast only once the optimising compiler has compiled them; the scalar kernels give the same bits).
 * A command computes the same bits either way: these options change speed only.
 */
final class ChildJvm {
    private ChildJvm() {}

    /** {@code java [options] -cp CLASSPATH org.stagecheck.cli.Main args...}, on the test's own JVM and class path. */
    static List<String> command(List<String> jvmOptions, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(args);
        return cmd;
    }

    /** The same with no options of the caller's. */
    static List<String> command(String... args) {
        return command(List.of(), List.of(args));
    }
}
