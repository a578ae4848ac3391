package org.stagecheck.passcheck;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replay line is a command for the user's project, not for this repository: it runs from the
 * reactor's root, selects the module by its path under the root (not by its directory's name),
 * adds {@code -pl}/{@code -am} only for a module of a multi-module project, and uses the
 * project's wrapper when it has one.
 */
class MavenReplayTest {
    private static final String TEST = "MyPassTest#renumbersBuffers";

    @TempDir
    Path tmp;

    private static Path pom(Path dir, String... modules) throws IOException {
        StringBuilder sb = new StringBuilder("<project>\n  <modules>\n");
        for (String m : modules) {
            sb.append("    <module>").append(m).append("</module>\n");
        }
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("pom.xml"), sb.append("  </modules>\n</project>\n"));
        return dir;
    }

    @Test
    void aSingleModuleProjectRunsTheTestWhereItIs() throws IOException {
        Path project = pom(tmp.resolve("compiler"));
        assertThat(MavenReplay.command(project, TEST, null))
                .isEqualTo("cd " + project + " && mvn test -Dtest='MyPassTest#renumbersBuffers'");
    }

    @Test
    void aNestedModuleIsSelectedByItsPathUnderTheRoot() throws IOException {
        Path root = pom(tmp.resolve("compiler"), "passes/core", "runtime");
        Path module = pom(root.resolve("passes/core"));
        pom(root.resolve("runtime"));
        assertThat(MavenReplay.command(module, TEST, null)).isEqualTo("cd " + root
                + " && mvn test -pl passes/core -am -Dsurefire.failIfNoSpecifiedTests=false -Dtest='MyPassTest#renumbersBuffers'");
    }

    @Test
    void anAggregatorInBetweenIsClimbedThrough() throws IOException {
        Path root = pom(tmp.resolve("compiler"), "passes");
        pom(root.resolve("passes"), "core/");
        Path module = pom(root.resolve("passes/core"));
        assertThat(MavenReplay.command(module, TEST, null)).startsWith("cd " + root + " && mvn test -pl passes/core -am ");
    }

    @Test
    void aPomAboveThatDoesNotListTheProjectIsNotItsRoot() throws IOException {
        Path unrelated = pom(tmp.resolve("work"), "other");
        Path project = pom(unrelated.resolve("compiler"));
        assertThat(MavenReplay.command(project, TEST, null)).isEqualTo("cd " + project + " && mvn test -Dtest='MyPassTest#renumbersBuffers'");
    }

    @Test
    void theWrapperOrANamedMavenCommandIsUsedAndOddPathsAreQuoted() throws IOException {
        Path root = pom(tmp.resolve("my compiler's repo"), "core");
        Path module = pom(root.resolve("core"));
        Files.writeString(root.resolve("mvnw"), "#!/bin/sh\n");
        assertThat(MavenReplay.command(module, TEST, null))
                .startsWith("cd '" + tmp + "/my compiler'\\''s repo' && ./mvnw test -pl core -am ");
        assertThat(MavenReplay.command(module, TEST, "bin/mvn25")).contains(" && bin/mvn25 test -pl core -am ");
    }

    @Test
    void withoutAModuleDirectoryTheCommandIsForTheCurrentProject() {
        assertThat(MavenReplay.command(null, TEST, null)).isEqualTo("mvn test -Dtest='MyPassTest#renumbersBuffers'");
    }
}
