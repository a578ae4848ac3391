package org.stagecheck.passcheck;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The Java in docs/pass-testing.md is compiled and run: every {@code java} block there is, line
 * for line (spacing aside), the code of a test (the first is {@link ReadmeExampleTest}'s), so an
 * example that stops compiling or passing fails the build. (The README's Java example is compiled
 * and run in a fresh Maven project by module maven-example.)
 */
class DocumentedExamplesTest {
    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);

    private static List<String> javaBlocks(String markdown) {
        List<String> out = new ArrayList<>();
        Matcher m = JAVA_BLOCK.matcher(markdown);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    /** The text with every run of white space made one space, line ends included. */
    private static String normalized(String text) {
        return text.replaceAll("\\s+", " ").strip();
    }

    private static String testSources() throws IOException {
        StringBuilder all = new StringBuilder();
        try (Stream<Path> files = Files.walk(Path.of(".."))) {
            for (Path f : files.filter(x -> x.toString().endsWith(".java") && x.toString().contains("/src/test/java/")
                    && !x.toString().contains("/target/")).sorted().toList()) {
                all.append(normalized(Files.readString(f))).append('\n');
            }
        }
        return all.toString();
    }

    @Test
    void everyJavaBlockOfThePassTestingGuideIsATestsCode() throws IOException {
        List<String> blocks = javaBlocks(Files.readString(Path.of("..", "docs", "pass-testing.md")));
        assertThat(blocks).hasSizeGreaterThanOrEqualTo(3);
        String sources = testSources();
        for (String block : blocks) {
            assertThat(sources).as("docs/pass-testing.md block:\n" + block).contains(normalized(block));
        }
    }
}
