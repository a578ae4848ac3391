package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.Npy;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** {@code golden check --junit}: one test per compared output, named case/output, each case a suite, with times in seconds. */
class GoldenJunitTest {
    private static final Path TP2 = Path.of("../golden/cases/tp2-matmul-allreduce");
    private static final Path FP8 = Path.of("../golden/cases/fp8-scaled-matmul");

    @TempDir
    Path tmp;

    private static Document parse(Path xml) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(Files.readAllBytes(xml)));
    }

    private static List<Element> elements(Document doc, String tag) {
        NodeList n = doc.getElementsByTagName(tag);
        List<Element> out = new ArrayList<>();
        for (int i = 0; i < n.getLength(); i++) {
            out.add((Element) n.item(i));
        }
        return out;
    }

    @Test
    void everyComparedOutputIsATestWithATime() throws Exception {
        Path junit = tmp.resolve("junit.xml");
        CliRunner r = CliRunner.run("golden", "check", TP2.toString(), FP8.toString(), "--junit", junit.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        Document doc = parse(junit);
        assertThat(elements(doc, "testcase")).extracting(e -> e.getAttribute("name"))
                .containsExactly("tp2-matmul-allreduce/y.c0", "tp2-matmul-allreduce/y.c1", "fp8-scaled-matmul/y", "fp8-scaled-matmul/y_f32");
        assertThat(elements(doc, "testsuite")).extracting(e -> e.getAttribute("name")).containsExactly("tp2-matmul-allreduce", "fp8-scaled-matmul");
        assertThat(doc.getDocumentElement().getAttribute("tests")).isEqualTo("4");
        double total = Double.parseDouble(doc.getDocumentElement().getAttribute("time"));
        for (Element suite : elements(doc, "testsuite")) {
            double caseTime = Double.parseDouble(suite.getAttribute("time"));
            assertThat(caseTime).isPositive().isLessThanOrEqualTo(total);
            NodeList outputs = suite.getElementsByTagName("testcase");
            double sum = 0;
            for (int i = 0; i < outputs.getLength(); i++) {
                double t = Double.parseDouble(((Element) outputs.item(i)).getAttribute("time"));
                assertThat(t).isGreaterThanOrEqualTo(0);
                sum += t;
            }
            // an output's time is its comparison; the case's adds loading and running the backend
            assertThat(sum).isLessThanOrEqualTo(caseTime + 1e-6);
        }
        assertThat(elements(doc, "failure")).isEmpty();
    }

    @Test
    void aMismatchingOutputIsTheOnlyFailureAndCarriesItsComparisonSummary() throws Exception {
        Path act = tmp.resolve("act");
        assertThat(CliRunner.run("run", TP2.resolve("program.json").toString(), "--inputs", TP2.toString(), "--out", act.toString()).exit()).isZero();
        Tensor y = Npy.read(act.resolve("y.c1.npy"));
        float[] v = y.toFloats();
        v[3] += 0.5f;
        Npy.write(act.resolve("y.c1.npy"), Tensor.fromFloats(y.dtype(), y.shape(), v));
        Path junit = tmp.resolve("junit.xml");
        CliRunner r = CliRunner.run("golden", "check", TP2.toString(), "--actual", act.toString(), "--junit", junit.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(1);
        Document doc = parse(junit);
        assertThat(elements(doc, "testcase")).hasSize(2);
        List<Element> failures = elements(doc, "failure");
        assertThat(failures).hasSize(1);
        Element failure = failures.get(0);
        assertThat(((Element) failure.getParentNode()).getAttribute("name")).isEqualTo("tp2-matmul-allreduce/y.c1");
        assertThat(failure.getAttribute("message")).contains("FAIL").contains("1 of").contains("elements mismatch");
        assertThat(failure.getTextContent()).contains("y.c1: FAIL").contains("would pass with");
        assertThat(doc.getDocumentElement().getAttribute("failures")).isEqualTo("1");
        assertThat(doc.getDocumentElement().getAttribute("tests")).isEqualTo("2");
    }

    @Test
    void aCaseWithNothingComparedIsOneTestNamedAfterIt() throws Exception {
        Path bad = tmp.resolve("bad");
        Files.createDirectories(bad);
        Files.writeString(bad.resolve("manifest.json"), "{ \"format\": ");
        Path junit = tmp.resolve("junit.xml");
        CliRunner r = CliRunner.run("golden", "check", bad.toString(), "--junit", junit.toString());
        assertThat(r.exit()).isEqualTo(2);
        Document doc = parse(junit);
        assertThat(elements(doc, "testcase")).extracting(e -> e.getAttribute("name")).containsExactly("bad");
        assertThat(elements(doc, "error")).hasSize(1);
        assertThat(elements(doc, "error").get(0).getAttribute("type")).isEqualTo("BAD_INPUT");
    }
}
