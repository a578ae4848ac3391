package org.stagecheck.golden.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/** The shared JUnit XML writer: counts, times, one failure per finding, escaping; parsed back as XML. */
class JunitXmlTest {
    private static Document parse(String xml) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void countsTimesAndOneFailurePerFinding() throws Exception {
        String xml = JunitXml.of("stagecheck validate", List.of(
                JunitXml.TestCase.passed("validate", "a.json", Duration.ofMillis(1500)),
                JunitXml.TestCase.failed("validate", "b<&>\".json", Duration.ofMillis(250), List.of(
                        new JunitXml.Finding("UNKNOWN_BUFFER", "reads 'x' & more", "b.json:4:7: UNKNOWN_BUFFER <x>"),
                        new JunitXml.Finding("SHAPE", "second\u0001", "body"))),
                JunitXml.TestCase.error("validate", "c.json", Duration.ZERO, new JunitXml.Finding("BAD_INPUT", "cannot read", "cannot read c.json")),
                JunitXml.TestCase.skipped("verify", "buffer-remap", "not checked")));
        Document d = parse(xml);
        Element suites = d.getDocumentElement();
        assertThat(suites.getAttribute("name")).isEqualTo("stagecheck validate");
        assertThat(suites.getAttribute("tests")).isEqualTo("4");
        assertThat(suites.getAttribute("failures")).isEqualTo("1");
        assertThat(suites.getAttribute("errors")).isEqualTo("1");
        assertThat(suites.getAttribute("time")).isEqualTo("1.750000");
        Element suite = (Element) suites.getElementsByTagName("testsuite").item(0);
        assertThat(suite.getAttribute("name")).isEqualTo("stagecheck validate");
        assertThat(suite.getAttribute("skipped")).isEqualTo("1");
        var cases = suite.getElementsByTagName("testcase");
        assertThat(cases.getLength()).isEqualTo(4);
        Element b = (Element) cases.item(1);
        assertThat(b.getAttribute("name")).isEqualTo("b<&>\".json");
        assertThat(b.getAttribute("time")).isEqualTo("0.250000");
        var failures = b.getElementsByTagName("failure");
        assertThat(failures.getLength()).isEqualTo(2);
        assertThat(((Element) failures.item(0)).getAttribute("type")).isEqualTo("UNKNOWN_BUFFER");
        assertThat(((Element) failures.item(0)).getAttribute("message")).isEqualTo("reads 'x' & more");
        assertThat(failures.item(0).getTextContent()).isEqualTo("b.json:4:7: UNKNOWN_BUFFER <x>");
        assertThat(((Element) failures.item(1)).getAttribute("message")).isEqualTo("second?");
        assertThat(((Element) cases.item(0)).getAttribute("time")).isEqualTo("1.500000");
        assertThat(cases.item(0).getChildNodes().getLength()).isZero();
        assertThat(((Element) cases.item(2)).getElementsByTagName("error").getLength()).isEqualTo(1);
        assertThat(((Element) cases.item(3)).getElementsByTagName("skipped").getLength()).isEqualTo(1);
    }
}
