package org.stagecheck.mavenexample;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One run of the Maven the build itself runs on ({@code maven.home}, passed in by this module's
 * pom), or else of {@code mvn} on the PATH, on the running JVM's JDK.
 *
 * @param exitCode the process's exit status
 * @param log      everything it printed
 */
record MavenRun(int exitCode, String log) {
    private static final long TIMEOUT_MINUTES = 10;

    /** The mvn launcher, or empty when neither {@code stagecheck.maven.home} nor the PATH has one. */
    static Optional<Path> find() {
        String home = System.getProperty("stagecheck.maven.home", "");
        if (!home.isBlank() && !home.contains("${")) {
            Path mvn = Path.of(home, "bin", "mvn");
            if (Files.isExecutable(mvn)) {
                return Optional.of(mvn);
            }
        }
        String path = System.getenv().getOrDefault("PATH", "");
        return Stream.of(path.split(java.io.File.pathSeparator)).filter(d -> !d.isBlank())
                .map(d -> Path.of(d, "mvn")).filter(Files::isExecutable).findFirst();
    }

    /** Runs {@code mvn -B -o -s SETTINGS GOALS...} in {@code project} with JAVA_HOME the running JDK. */
    static MavenRun run(Path mvn, Path project, Path settings, String... goals) throws IOException, InterruptedException {
        List<String> command = Stream.concat(Stream.of(mvn.toString(), "-B", "-o", "-s", settings.toString()), Stream.of(goals)).toList();
        Path log = project.resolveSibling(project.getFileName() + ".log");
        ProcessBuilder pb = new ProcessBuilder(command).directory(project.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        String javaHome = System.getProperty("java.home");
        pb.environment().put("JAVA_HOME", javaHome);
        pb.environment().put("PATH", Path.of(javaHome, "bin") + java.io.File.pathSeparator + pb.environment().getOrDefault("PATH", ""));
        pb.environment().remove("MAVEN_OPTS");
        pb.environment().remove("MAVEN_ARGS");
        Process p = pb.start();
        if (!p.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
            p.destroyForcibly().waitFor();
            return new MavenRun(-1, "timed out after " + TIMEOUT_MINUTES + " minutes:\n" + new String(Files.readAllBytes(log), StandardCharsets.UTF_8));
        }
        return new MavenRun(p.exitValue(), new String(Files.readAllBytes(log), StandardCharsets.UTF_8));
    }
}
