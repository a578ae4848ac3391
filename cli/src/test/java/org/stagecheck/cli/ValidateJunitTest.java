package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/** {@code validate --junit}: one test per program file, one failure per finding, bad input an error, with times. */
class ValidateJunitTest {
    @TempDir
    Path tmp;

    @Test
    void oneTestPerFileAndOneFailurePerFinding() throws Exception {
        String good = "../examples/tp2-matmul-allreduce.json";
        Path bad = tmp.resolve("bad.json");
        // two findings: a stage reads a buffer nobody declares, twice
        Files.writeString(bad, Files.readString(Path.of(good)).replace("\"ins\": [\"partial.c0\", \"partial.c1\"]", "\"ins\": [\"nope.c0\", \"nope.c1\"]"));
        Path missing = tmp.resolve("missing.json");
        Path xml = tmp.resolve("validate.xml");
        CliRunner r = CliRunner.run("validate", good, bad.toString(), missing.toString(), "--junit", xml.toString());
        assertThat(r.exit()).isEqualTo(2);
        Document d = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(Files.readAllBytes(xml)));
        Element suite = (Element) d.getElementsByTagName("testsuite").item(0);
        assertThat(suite.getAttribute("name")).isEqualTo("stagecheck validate");
        assertThat(suite.getAttribute("tests")).isEqualTo("3");
        assertThat(suite.getAttribute("failures")).isEqualTo("1");
        assertThat(suite.getAttribute("errors")).isEqualTo("1");
        var cases = d.getElementsByTagName("testcase");
        assertThat(((Element) cases.item(0)).getAttribute("name")).isEqualTo(good);
        assertThat(((Element) cases.item(0)).getAttribute("time")).matches("\\d+\\.\\d{6}");
        Element failed = (Element) cases.item(1);
        assertThat(failed.getAttribute("name")).isEqualTo(bad.toString());
        var failures = failed.getElementsByTagName("failure");
        CliRunner text = CliRunner.run("validate", bad.toString());
        long findings = text.out().lines().filter(l -> l.startsWith(bad.toString() + ":") && !l.endsWith("problem(s)")).count();
        assertThat(findings).isGreaterThanOrEqualTo(2);
        assertThat(failures.getLength()).isEqualTo((int) findings);
        assertThat(failures.item(0).getTextContent()).startsWith(bad + ":");
        assertThat(((Element) cases.item(2)).getElementsByTagName("error").item(0).getTextContent()).contains("missing.json");
    }

    @Test
    void aJunitPathThatIsAnInputIsRefusedBeforeTheWork() {
        String good = "../examples/tp2-matmul-allreduce.json";
        CliRunner r = CliRunner.run("validate", good, "--junit", good);
        assertThat(r.exit()).isEqualTo(2);
    }
}
