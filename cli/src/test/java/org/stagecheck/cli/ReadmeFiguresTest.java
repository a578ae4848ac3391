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
 * The README repeats no measured figure: measurements live in docs/bench.md (and the area's doc),
 * written where they were made, so the README and a doc can never disagree. Two checks: no README
 * table has the columns of a doc's table unless every figure of it is the doc's (a quoted table),
 * and no README prose holds a figure with a unit of time, speed, size or ratio.
 */
class ReadmeFiguresTest {
    private static final Path ROOT = Path.of("..");

    /** A measured figure: a number with a unit of time, throughput, memory or a speed ratio. */
    private static final Pattern MEASURED = Pattern.compile(
            "\\b\\d+(?:[.,]\\d+)?\\s?(?:ns|us|ms|s|GB/s|GFLOP/s|KB|MB|GB|KiB|MiB|GiB|x)(?![\\w/])");

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
        List<String> disagreements = new ArrayList<>();
        for (Table t : tables(ROOT.resolve("README.md"))) {
            List<Table> sources = docTables.stream().filter(d -> d.columns().containsAll(t.columns())).toList();
            if (sources.isEmpty()) {
                continue;   // the README's own table (commands, modules, dependencies)
            }
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
        assertThat(disagreements).as("figures of README tables that their doc does not hold").isEmpty();
    }

    @Test
    void theReadmeHoldsNoMeasuredFigure() throws IOException {
        List<String> found = new ArrayList<>();
        List<String> lines = Files.readAllLines(ROOT.resolve("README.md"));
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = MEASURED.matcher(lines.get(i));
            while (m.find()) {
                found.add("README.md:" + (i + 1) + ": " + m.group());
            }
        }
        assertThat(found).as("measured figures in the README (they belong in docs/bench.md)").isEmpty();
    }

    @Test
    void aMeasuredFigureIsRecognised() {
        assertThat(MEASURED.matcher("7.43 ms per token").find()).isTrue();
        assertThat(MEASURED.matcher("at 1.19x the speed").find()).isTrue();
        assertThat(MEASURED.matcher("2.31 GB/s").find()).isTrue();
        assertThat(MEASURED.matcher("JDK 25, version 0.1.0-SNAPSHOT, 2 chips, f32").find()).isFalse();
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
