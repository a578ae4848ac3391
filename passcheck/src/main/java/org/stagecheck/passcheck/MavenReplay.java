package org.stagecheck.passcheck;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * The Maven command line that runs one test method alone, as it is run in the user's project:
 * from the reactor's root ({@code cd ROOT && ...}, so it works from any directory), with the
 * project's own Maven wrapper when it has one, and for a module of a multi-module project, that
 * module and what it needs ({@code -pl PATH -am}, the other modules' tests not required to match).
 *
 * <p>The root is found from the module's directory (surefire's {@code basedir}): going up to the
 * nearest directory whose {@code pom.xml} lists it as a {@code <module>}, and on from there. The
 * Maven command is {@code ./mvnw} when the root has that wrapper, else {@code mvn}; the system
 * property {@value #MAVEN} (set in the project's surefire configuration) names another.
 */
final class MavenReplay {
    /** The system property naming the Maven command to print instead of {@code mvn} or {@code ./mvnw}. */
    static final String MAVEN = "stagecheck.maven";
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./:=@%+,-]+");

    private MavenReplay() {
    }

    /**
     * The command that runs {@code test} ({@code Class#method}) of the module in {@code moduleDir}
     * ({@code null}: unknown, the command for the current directory's project), with {@code maven}
     * ({@code null}: found as described above).
     */
    static String command(Path moduleDir, String test, String maven) {
        if (moduleDir == null) {
            return (maven == null ? "mvn" : maven) + " test -Dtest=" + quote(test);
        }
        Path module = moduleDir.toAbsolutePath().normalize();
        Path root = root(module);
        String mvn = maven != null ? maven : Files.isRegularFile(root.resolve("mvnw")) ? "./mvnw" : "mvn";
        StringBuilder sb = new StringBuilder("cd ").append(quote(root.toString())).append(" && ").append(mvn).append(" test");
        if (!root.equals(module)) {
            sb.append(" -pl ").append(quote(root.relativize(module).toString())).append(" -am -Dsurefire.failIfNoSpecifiedTests=false");
        }
        return sb.append(" -Dtest=").append(quote(test)).toString();
    }

    /** The top of the reactor {@code module} belongs to: itself when no parent directory's pom lists it. */
    static Path root(Path module) {
        for (Path up = module.getParent(); up != null; up = up.getParent()) {
            if (lists(up, up.relativize(module).toString())) {
                return root(up);
            }
        }
        return module;
    }

    private static boolean lists(Path dir, String child) {
        Path pom = dir.resolve("pom.xml");
        if (!Files.isRegularFile(pom)) {
            return false;
        }
        try {
            String text = Files.readString(pom).replaceAll("\\s+", "");
            return text.contains("<module>" + child + "</module>") || text.contains("<module>" + child + "/</module>")
                    || text.contains("<module>./" + child + "</module>");
        } catch (IOException | RuntimeException e) {
            return false; // unreadable: not a parent we can name
        }
    }

    /** {@code s} as one shell word: as it is when plain, else in single quotes. */
    static String quote(String s) {
        return PLAIN.matcher(s).matches() ? s : "'" + s.replace("'", "'\\''") + "'";
    }
}
