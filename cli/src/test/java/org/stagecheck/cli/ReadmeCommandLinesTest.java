package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.cuda.compile.Toolchain;

/**
 * Every command line of README.md's "Command line" section runs, in the order written, and exits
 * 0 as the section's table says of a run with nothing wrong: a reader can paste them one after
 * another. Optional parts ({@code [--trace]}) are left out; {@code out/} and {@code cases/} go to
 * a temporary directory. Not run here: the {@code bench} lines (minutes of measuring each, checked
 * by hand: docs/bench.md) and, on a machine without g++, {@code cuda run --emulate}.
 */
class ReadmeCommandLinesTest {
    private static final Path ROOT = Path.of("..");

    @TempDir
    Path work;

    @Test
    void everyCommandLineOfTheReadmeRunsInOrderAndHolds() throws IOException {
        List<String> lines = commandLines();
        assertThat(lines).as("the README's command lines").hasSizeGreaterThanOrEqualTo(10);
        boolean emulation = Toolchain.fromEnvironment().cxx() != null;
        int ran = 0;
        for (String line : lines) {
            List<String> words = words(line.replaceAll("\\s*\\[[^\\]]*\\]", ""));
            assertThat(words.getFirst()).isEqualTo("bin/stagecheck");
            List<String> args = words.subList(1, words.size());
            if (args.getFirst().equals("bench") || (args.contains("--emulate") && !emulation)) {
                continue;
            }
            CliRunner r = CliRunner.run(args.stream().flatMap(this::resolve).toArray(String[]::new));
            assertThat(r.exit()).as("%s%n%s%s", line, r.out(), r.err()).isZero();
            ran++;
        }
        assertThat(ran).isGreaterThanOrEqualTo(10);
    }

    /** The lines of the shell block that opens the README's "Command line" section. */
    private static List<String> commandLines() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        int section = readme.indexOf("\n## Command line");
        int start = readme.indexOf("```sh\n", section) + "```sh\n".length();
        int end = readme.indexOf("```", start);
        return readme.substring(start, end).lines().filter(l -> !l.isBlank()).toList();
    }

    /** Shell words: split at spaces, a single-quoted word kept whole (without its quotes). */
    private static List<String> words(String line) {
        List<String> out = new ArrayList<>();
        Matcher m = Pattern.compile("'([^']*)'|(\\S+)").matcher(line);
        while (m.find()) {
            out.add(m.group(1) != null ? m.group(1) : m.group(2));
        }
        return out;
    }

    /** A README path as this test sees it: the repository's files from the module, outputs in the temp dir, globs expanded. */
    private Stream<String> resolve(String word) {
        if (word.startsWith("out/") || word.startsWith("out.") || word.startsWith("cases/")) {
            return Stream.of(work.resolve(word).toString());
        }
        if (!word.startsWith("examples/") && !word.startsWith("golden/")) {
            return Stream.of(word);
        }
        if (!word.contains("*")) {
            return Stream.of(ROOT.resolve(word).toString());
        }
        Path dir = ROOT.resolve(word).getParent();
        PathMatcher glob = FileSystems.getDefault().getPathMatcher("glob:" + Path.of(word).getFileName());
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> glob.matches(f.getFileName())).sorted().map(Path::toString).toList().stream();
        } catch (IOException e) {
            throw new AssertionError("cannot list " + dir, e);
        }
    }
}
