package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code bin/test --quick} is the fast part of every module: it leaves out the test classes tagged
 * {@code slow} and nothing else, and every module with tests keeps some in it; the README states
 * how long both runs take.
 */
class QuickSuiteTest {
    private static final Path ROOT = Path.of("..");

    @Test
    void quickLeavesOutTheSlowTagAndRunsEveryOtherTest() throws IOException {
        String script = Files.readString(ROOT.resolve("bin/test"));
        assertThat(script).contains("--quick) args+=(-DexcludedGroups=slow ", "-Dbench.excluded=bench,slow", "-Dverifier.excludedGroups=campaign,slow", "-Dgpu.excluded=gpu,slow")
                .contains("exec \"$here/mvn25\" -B verify ");
    }

    /** A module whose surefire names its own excluded tags through a property: --quick sets that property with slow in it. */
    @Test
    void modulesWithTheirOwnExcludedTagsLeaveOutSlowToo() throws IOException {
        String script = Files.readString(ROOT.resolve("bin/test"));
        java.util.regex.Pattern own = java.util.regex.Pattern.compile("<excludedGroups>\\$\\{([^}]+)\\}</excludedGroups>");
        int modules = 0;
        try (Stream<Path> s = Files.list(ROOT)) {
            for (Path pom : s.map(m -> m.resolve("pom.xml")).filter(Files::isRegularFile).toList()) {
                java.util.regex.Matcher m = own.matcher(Files.readString(pom));
                while (m.find()) {
                    modules++;
                    assertThat(script).as(pom.toString()).containsPattern("-D" + java.util.regex.Pattern.quote(m.group(1)) + "=[a-z,]*slow");
                }
            }
        }
        assertThat(modules).isGreaterThanOrEqualTo(3);
    }

    @Test
    void everyModuleWithTestsKeepsFastOnes() throws IOException {
        Map<String, int[]> perModule = new TreeMap<>(); // module -> {all, slow}
        try (Stream<Path> modules = Files.list(ROOT)) {
            for (Path module : modules.filter(m -> Files.isDirectory(m.resolve("src/test/java"))).toList()) {
                try (Stream<Path> s = Files.walk(module.resolve("src/test/java"))) {
                    for (Path f : s.filter(p -> p.getFileName().toString().endsWith("Test.java")).toList()) {
                        int[] counts = perModule.computeIfAbsent(module.getFileName().toString(), k -> new int[2]);
                        counts[0]++;
                        if (Files.readString(f).contains("\n@Tag(\"slow\")")) {
                            counts[1]++;
                        }
                    }
                }
            }
        }
        assertThat(perModule).hasSizeGreaterThanOrEqualTo(10);
        List<String> allSlow = perModule.entrySet().stream()
                .filter(e -> e.getValue()[0] == e.getValue()[1] && !e.getKey().equals("maven-example")).map(Map.Entry::getKey).toList();
        assertThat(allSlow).as("modules whose every test class is slow (maven-example runs Maven: slow by nature)").isEmpty();
        assertThat(perModule.values().stream().mapToInt(c -> c[1]).sum()).as("classes tagged slow").isGreaterThan(10);
    }

    @Test
    void theReadmeStatesBothDurations() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        assertThat(readme).containsPattern("(?s)`bin/test` runs every module's tests.{0,300}?[0-9.]+ minutes")
                .containsPattern("(?s)`bin/test --quick` runs.{0,600}?[0-9.]+ minutes");
    }
}
