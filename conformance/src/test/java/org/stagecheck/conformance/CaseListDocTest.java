package org.stagecheck.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/** docs/conformance.md lists exactly the suite's cases, each with its rule; it and docs/architecture.md give their number. */
class CaseListDocTest {

    @Test
    void theDocumentedCaseListIsTheSuite() throws IOException {
        String doc = Files.readString(Path.of("..", "docs", "conformance.md"));
        Matcher m = Pattern.compile("(?m)^\\| `([a-z0-9-]+/[a-z0-9-]+)` \\| (.*) \\|$").matcher(doc);
        List<String> rows = m.results().map(r -> r.group(1) + " | " + r.group(2)).toList();
        List<String> cases = Conformance.allCases().stream()
                .map(c -> c.name() + " | " + c.what()).toList();
        assertThat(rows).containsExactlyElementsOf(cases);
    }

    @Test
    void theDocsStateTheSuitesSize() throws IOException {
        String guide = Files.readString(Path.of("..", "docs", "conformance.md")).replaceAll("\\s+", " ");
        String architecture = Files.readString(Path.of("..", "docs", "architecture.md")).replaceAll("\\s+", " ");
        int n = Conformance.allCases().size();
        assertThat(guide).contains(n + " cases over every stage kind");
        assertThat(architecture).contains(n + " small programs with hand-worked expected tensors");
    }
}
