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

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.cuda.compile.Toolchain;

/**
 * Every command line of docs/cli.md's "Command lines" section, and of README.md's CI gate, runs,
 * in the order written, and exits 0 as docs/cli.md's table says of a run with nothing wrong: a
 * reader can paste them one after another: no synopsis brackets in them, every output under
 * {@code out/} (ignored by git), which goes to a temporary directory here. Not run here: the {@code bench} lines (minutes of measuring each, checked
 * by hand: docs/bench.md) and, on a machine without g++, {@code cuda run --emulate}.
 */
@Tag("slow")
class ReadmeCommandLinesTest {
    private static final Path ROOT = Path.of("..");

    @TempDir
    Path work;

    @Test
    void everyCommandLineOfTheCliReferenceRunsInOrderAndHolds() throws IOException {
        List<String> lines = commandLines(ROOT.resolve("docs/cli.md"), "\n## Command lines");
        assertThat(lines).as("docs/cli.md's command lines").hasSizeGreaterThanOrEqualTo(10)
                .noneMatch(l -> l.contains("[") || l.contains("..."));
        // every output under out/, which git ignores
        assertThat(lines.stream().filter(l -> l.contains(" --out ")))
                .allMatch(l -> java.util.regex.Pattern.compile(" --out out/").matcher(l).find());
        assertThat(runAll(lines)).isGreaterThanOrEqualTo(10);
    }

    /** The README's CI gate holds no synopsis: every line runs as pasted (bin/build and mkdir aside, which this build did). */
    @Test
    void theReadmesCiGateRunsAsPastedAndHolds() throws IOException {
        List<String> lines = commandLines(ROOT.resolve("README.md"), "<!-- ci-gate -->");
        assertThat(lines).as("the README's CI gate").hasSizeGreaterThanOrEqualTo(4).noneMatch(l -> l.contains("[") || l.contains("..."));
        Files.createDirectories(work.resolve("out"));
        List<String> checks = lines.stream().filter(l -> l.startsWith("bin/stagecheck ")).toList();
        assertThat(checks).hasSizeGreaterThanOrEqualTo(3);
        assertThat(runAll(checks)).isEqualTo(checks.size());
    }

    /** Runs the lines in order, each expected to exit 0; returns how many ran (bench lines and, without g++, emulation are left out). */
    private int runAll(List<String> lines) {
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
        return ran;
    }

    /** The lines of the first shell block after {@code heading} in {@code file}. */
    private static List<String> commandLines(Path file, String heading) throws IOException {
        String text = Files.readString(file);
        int section = text.indexOf(heading);
        assertThat(section).as("%s has '%s'", file, heading.strip()).isNotNegative();
        int start = text.indexOf("```sh\n", section) + "```sh\n".length();
        int end = text.indexOf("```", start);
        return text.substring(start, end).lines().filter(l -> !l.isBlank()).toList();
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
        if (word.equals("examples")) {
            return Stream.of(ROOT.resolve(word).toString());
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
