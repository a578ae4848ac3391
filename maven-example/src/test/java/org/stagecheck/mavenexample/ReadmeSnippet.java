package org.stagecheck.mavenexample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The README's "Use from Maven" example: the dependency to paste into a pom and one JUnit 5 test
 * class. Each is the one fenced block between an opening and a closing HTML comment, e.g.
 * {@code <!-- maven-example:pom -->} ... {@code <!-- /maven-example:pom -->}, invisible on a
 * rendered page.
 *
 * @param dependency the pom fragment, one or more {@code <dependency>} elements
 * @param testSource the Java source of the test class, imports included
 */
record ReadmeSnippet(String dependency, String testSource) {
    static final String POM = "maven-example:pom";
    static final String TEST = "maven-example:test";

    private static final Pattern FENCED = Pattern.compile("```[a-z]*\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern PACKAGE = Pattern.compile("(?m)^package\\s+([\\w.]+)\\s*;");
    private static final Pattern CLASS = Pattern.compile("(?m)^(?:public\\s+)?(?:final\\s+)?class\\s+(\\w+)");

    static ReadmeSnippet from(Path readme) throws IOException {
        String text = Files.readString(readme);
        return new ReadmeSnippet(block(text, POM, readme), block(text, TEST, readme));
    }

    /** The one fenced block between {@code <!-- marker -->} and {@code <!-- /marker -->}. */
    static String block(String markdown, String marker, Path where) {
        String open = "<!-- " + marker + " -->";
        String close = "<!-- /" + marker + " -->";
        int start = markdown.indexOf(open);
        int end = start < 0 ? -1 : markdown.indexOf(close, start);
        if (start < 0 || end < 0) {
            throw new AssertionError(where + " has no '" + open + "' ... '" + close + "' around its example");
        }
        Matcher m = FENCED.matcher(markdown.substring(start + open.length(), end));
        if (!m.find()) {
            throw new AssertionError(where + ": no fenced code block between '" + open + "' and '" + close + "'");
        }
        String body = m.group(1);
        if (m.find()) {
            throw new AssertionError(where + ": more than one fenced code block between '" + open + "' and '" + close + "'");
        }
        return body;
    }

    /** The test class's source file, relative to {@code src/test/java}. */
    Path sourceFile() {
        Matcher c = CLASS.matcher(testSource);
        if (!c.find()) {
            throw new AssertionError("the README's Java example declares no top-level class:\n" + testSource);
        }
        Matcher p = PACKAGE.matcher(testSource);
        Path dir = p.find() ? Path.of(p.group(1).replace('.', '/')) : Path.of("");
        return dir.resolve(c.group(1) + ".java");
    }

    /** The artifactIds of the snippet's dependencies in {@code groupId} (this project's own). */
    List<String> ourArtifacts(String groupId) {
        Matcher m = Pattern.compile("<groupId>\\s*" + Pattern.quote(groupId) + "\\s*</groupId>\\s*<artifactId>\\s*([\\w.-]+)\\s*</artifactId>")
                .matcher(dependency);
        return m.results().map(r -> r.group(1)).toList();
    }

    /** The same dependency with another test source (to show that a failing example fails). */
    ReadmeSnippet withTestSource(String source) {
        return new ReadmeSnippet(dependency, source);
    }
}
