package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The figures README.md quotes from docs/*.md are the figures there: a measurement or a count is
 * written down where it was made (the area's doc) and only quoted in the README, so the two must
 * never disagree.
 *
 * <p>Two kinds of quotation are checked. A README table is a quotation when some table of a doc
 * has every one of its columns (a doc's table may have more, and may sit in a code block as a
 * command printed it); a README paragraph is one when it opens with one of the {@link #QUOTED}
 * phrases. Either way every figure of the quotation (a number, spaces between digit groups
 * ignored) must appear in the doc it is quoted from. Labels may be reworded and rows left out;
 * a figure that changed in one place only fails. (The conformance suite's size is checked against
 * the suite itself, by conformance's {@code CaseListDocTest}.)
 */
class ReadmeFiguresTest {
    private static final Path ROOT = Path.of("..");

    /** README paragraphs that quote a doc: the words they open with, and the doc. */
    private static final List<Quote> QUOTED = List.of(
            new Quote("`GenConfig` restricts stage kinds", "pass-testing.md"),
            new Quote("A correct renumbering holds over", "pass-testing.md"),
            new Quote("The minimiser (`reduce`, also `stagecheck reduce`)", "pass-testing.md"),
            new Quote("When a backend disagrees with the reference", "debugging.md"),
            new Quote("Then `stagecheck reduce PROGRAM --inputs DIR --fails-like", "debugging.md"),
            new Quote("`org.stagecheck.author.laws.Laws` runs", "author.md"),
            new Quote("machine: 2 cpus, 2 threads", "bench.md"),
            new Quote("Targets: matvec within 2x of the memory bandwidth", "bench.md"),
            new Quote("**Verifier scaling**", "verifier.md"),
            new Quote("Time per stage does not grow with size", "verifier.md"),
            new Quote("**A decode step of `small`**", "bench.md"),
            new Quote("Loads of weight tiles are now views", "bench.md"),
            new Quote("**Kernels of the decode step**", "bench.md"),
            new Quote("By the profile, MatMul went from", "bench.md"),
            new Quote("**The decode step now, on a quiet machine**", "bench.md"),
            new Quote("So on a quiet machine the `small` step", "bench.md"),
            new Quote("**Verifier mutation corpus and campaign**", "verifier.md"),
            new Quote("**Verifier adversarial corpus**", "verifier.md"),
            new Quote("**Golden comparison**", "bench.md"),
            new Quote("two f32 tensor sets of 1.00 GiB each", "bench.md"),
            new Quote("In this run, with other builds loading the 2-core machine", "bench.md"),
            new Quote("- The CUDA backend's GPU path", "cuda.md", "verifier.md", "bench.md"));

    /** A README paragraph that quotes figures from one or more docs. */
    private record Quote(String opening, String... docs) {
    }

    /** A markdown table: its columns, its rows of cells, and where it starts. */
    private record Table(Path file, int line, List<String> columns, List<List<String>> rows) {
        String where() {
            return ROOT.relativize(file) + ":" + line;
        }
    }

    private static final Pattern FIGURE = Pattern.compile("\\d+(?:[ .]\\d+)*");

    @Test
    void everyTableTheReadmeQuotesAgreesWithItsDoc() throws IOException {
        List<Table> docTables = new ArrayList<>();
        for (Path doc : docs()) {
            docTables.addAll(tables(doc));
        }
        List<String> checked = new ArrayList<>();
        List<String> disagreements = new ArrayList<>();
        for (Table t : tables(ROOT.resolve("README.md"))) {
            List<Table> sources = docTables.stream().filter(d -> d.columns().containsAll(t.columns())).toList();
            if (sources.isEmpty()) {
                continue;   // the README's own table (commands, modules, dependencies)
            }
            checked.add(t.where());
            Set<String> sourceFigures = new LinkedHashSet<>();
            for (Table d : sources) {
                sourceFigures.addAll(figures(Files.readString(d.file())));
            }
            for (List<String> row : t.rows()) {
                List<String> missing = figures(String.join(" | ", row)).stream().filter(f -> !sourceFigures.contains(f)).toList();
                if (!missing.isEmpty()) {
                    disagreements.add(t.where() + " row '" + row.getFirst() + "': " + missing + " not in "
                            + sources.stream().map(Table::where).distinct().toList());
                }
            }
        }
        // the gallery of buggy passes, the fails-like reductions, the benchmarks, the verifier's scaling
        assertThat(checked).as("README tables quoting a doc").hasSizeGreaterThanOrEqualTo(8);
        assertThat(disagreements).as("figures of README tables that their doc does not hold").isEmpty();
    }

    @Test
    void everyParagraphTheReadmeQuotesAgreesWithItsDoc() throws IOException {
        List<String> paragraphs = List.of(Files.readString(ROOT.resolve("README.md")).split("\n\\s*\n"));
        List<String> disagreements = new ArrayList<>();
        for (Quote q : QUOTED) {
            List<String> found = paragraphs.stream().filter(p -> p.strip().startsWith(q.opening())).toList();
            assertThat(found).as("README paragraph opening with '%s'", q.opening()).hasSize(1);
            Set<String> source = new LinkedHashSet<>();
            for (String doc : q.docs()) {
                source.addAll(figures(Files.readString(ROOT.resolve("docs").resolve(doc))));
            }
            List<String> missing = figures(found.getFirst()).stream().filter(f -> !source.contains(f)).toList();
            if (!missing.isEmpty()) {
                disagreements.add("'" + q.opening() + "...': " + missing + " not in docs/" + String.join(", docs/", q.docs()));
            }
        }
        assertThat(disagreements).as("figures of README paragraphs that their doc does not hold").isEmpty();
    }

    @Test
    void aFigureChangedOnOneSideIsCaught() {
        // the comparison itself: "70 226" and "70226" are one figure, 2.7 and 2.8 are not
        assertThat(figures("466 stages (70 226 elements) -> 2 stages in 2.7 s")).containsExactly("466", "70226", "2", "2.7");
        assertThat(figures("| 466 stages, 70226 elements | 2.8 s |")).doesNotContain("2.7").contains("70226");
    }

    /** The figures of {@code text}: each number, with the spaces between its digit groups removed. */
    private static List<String> figures(String text) {
        List<String> out = new ArrayList<>();
        Matcher m = FIGURE.matcher(text);
        while (m.find()) {
            // "1 000 000" is one figure, "2 stages" is not glued to a following "3"
            for (String part : m.group().split(" (?!\\d{3}(?!\\d))")) {
                out.add(part.replace(" ", "").replaceAll("\\.$", ""));
            }
        }
        return out;
    }

    private static List<Path> docs() throws IOException {
        try (Stream<Path> s = Files.list(ROOT.resolve("docs"))) {
            return s.filter(p -> p.toString().endsWith(".md")).sorted().toList();
        }
    }

    /** The tables of a markdown file: runs of lines starting with '|', separator rows skipped. */
    private static List<Table> tables(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file);
        List<Table> out = new ArrayList<>();
        int i = 0;
        while (i < lines.size()) {
            if (!lines.get(i).startsWith("|")) {
                i++;
                continue;
            }
            int start = i;
            List<String> columns = cells(lines.get(i++));
            List<List<String>> rows = new ArrayList<>();
            while (i < lines.size() && lines.get(i).startsWith("|")) {
                List<String> row = cells(lines.get(i++));
                if (!row.stream().allMatch(c -> c.matches(":?-+:?"))) {
                    rows.add(row);
                }
            }
            out.add(new Table(file, start + 1, columns, rows));
        }
        return out;
    }

    private static List<String> cells(String line) {
        String inner = line.strip();
        inner = inner.substring(1, inner.endsWith("|") && inner.length() > 1 ? inner.length() - 1 : inner.length());
        // a cell may hold an escaped bar (`tiny\|small`)
        return Stream.of(inner.split("(?<!\\\\)\\|")).map(String::strip).toList();
    }
}
