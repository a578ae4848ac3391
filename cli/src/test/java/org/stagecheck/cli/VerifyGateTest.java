package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * What {@code verify} in a CI gate must not let pass silently: a certificate written for another
 * program (one line naming both hashes), a split checked without its unsplit program
 * ({@code --require-parent}), and its JUnit XML (one test per obligation, with times).
 */
class VerifyGateTest {
    private static final String PROGRAM = "../examples/tp2-matmul-allreduce.json";
    private static final String CERT = "../examples/certificates/tp2-matmul-allreduce.json";
    private static final String UNSPLIT = "../examples/unsplit/tp2-matmul-allreduce.json";

    @TempDir
    static Path authored;

    @BeforeAll
    static void authorTwoSplits() {
        for (String[] a : new String[][] {{"decode", "2"}, {"decode", "4"}}) {
            CliRunner r = CliRunner.run("author", "--model", "tiny", "--cut", a[0], "--ctx", "8", "--tp", a[1],
                    "--out", authored.resolve(a[0] + a[1]).toString());
            assertThat(r.exit()).as(r.err()).isZero();
        }
    }

    private static Path dir(String name) {
        return authored.resolve(name);
    }

    @Test
    void anAuthoredCertificateNamesItsProgramAndVerifiesWithIt() throws Exception {
        assertThat(Files.readString(dir("decode2").resolve("certificate.json"))).containsPattern("\"programHash\": \"sha256:[0-9a-f]{64}\"");
        CliRunner r = CliRunner.run("verify", dir("decode2").resolve("program.json").toString(), "--cert", dir("decode2").resolve("certificate.json").toString());
        assertThat(r.exit()).as(r.out()).isZero();
    }

    @Test
    void anotherProgramsCertificateIsOneLineNamingBothHashes() {
        CliRunner r = CliRunner.run("verify", dir("decode2").resolve("program.json").toString(),
                "--cert", dir("decode4").resolve("certificate.json").toString());
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(1);
        var findings = r.out().lines().filter(l -> l.contains("certificate.json:")).toList();
        assertThat(findings).singleElement().satisfies(l -> assertThat(l).contains("CERT_PROGRAM_DIFFERS")
                .containsPattern("it names sha256:[0-9a-f]{64}, and this program's hash is sha256:[0-9a-f]{64}"));
        assertThat(r.out()).doesNotContain("SHARD_DECL_UNKNOWN_TENSOR").endsWith("NOT verified, 1 finding(s)" + System.lineSeparator());
    }

    @Test
    void requireParentFailsASplitVerifiedAloneAndSaysWhy() {
        CliRunner alone = CliRunner.run("verify", PROGRAM, "--cert", CERT, "--require-parent");
        assertThat(alone.exit()).as(alone.out() + alone.err()).isEqualTo(1);
        assertThat(alone.out()).contains("LOGICAL_PROGRAM_NOT_CHECKED").contains("The logical program was NOT checked: give the unsplit program as --unsplit")
                .endsWith("NOT verified, 1 finding(s)" + System.lineSeparator());
        CliRunner json = CliRunner.run("verify", PROGRAM, "--cert", CERT, "--require-parent", "--json");
        assertThat(json.exit()).isEqualTo(1);
        assertThat(json.out()).contains("\"holds\" : false").contains("\"exitCode\" : 1").contains("\"code\" : \"LOGICAL_PROGRAM_NOT_CHECKED\"");
        CliRunner withParent = CliRunner.run("verify", PROGRAM, "--cert", CERT, "--unsplit", UNSPLIT, "--require-parent");
        assertThat(withParent.exit()).as(withParent.out()).isZero();
        assertThat(withParent.out()).endsWith(": verified" + System.lineSeparator());
        // without the option, today's verdict: verified, saying what was not checked
        assertThat(CliRunner.run("verify", PROGRAM, "--cert", CERT).exit()).isZero();
    }

    @Test
    void requireParentIsNotSatisfiedByARemapParentOfASplit() {
        CliRunner r = CliRunner.run("verify", PROGRAM, "--cert", CERT, "--remapped-from", PROGRAM, "--require-parent");
        assertThat(r.exit()).as(r.out()).isEqualTo(1);
        assertThat(r.out()).contains("LOGICAL_PROGRAM_NOT_CHECKED").contains("give its unsplit program as --unsplit");
    }

    @Test
    void junitHasOneTestPerObligationWithTimesAndTheFindingsInTheFailure() throws Exception {
        Path xml = authored.resolve("verify-junit.xml");
        CliRunner r = CliRunner.run("verify", PROGRAM, "--junit", xml.toString());
        assertThat(r.exit()).isEqualTo(1);
        Document d = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(Files.readAllBytes(xml)));
        Element suite = (Element) d.getElementsByTagName("testsuite").item(0);
        assertThat(suite.getAttribute("name")).isEqualTo("stagecheck verify");
        assertThat(suite.getAttribute("tests")).isEqualTo("4");
        assertThat(suite.getAttribute("failures")).isEqualTo("1");
        assertThat(suite.getAttribute("time")).matches("\\d+\\.\\d{6}");
        var cases = d.getElementsByTagName("testcase");
        assertThat(cases.getLength()).isEqualTo(4);
        for (int i = 0; i < cases.getLength(); i++) {
            Element c = (Element) cases.item(i);
            assertThat(c.getAttribute("classname")).isEqualTo(PROGRAM);
            assertThat(c.getAttribute("time")).matches("\\d+\\.\\d{6}");
        }
        Element shard = (Element) cases.item(1);
        assertThat(shard.getAttribute("name")).isEqualTo("unreduced-shard");
        Element failure = (Element) shard.getElementsByTagName("failure").item(0);
        assertThat(failure.getAttribute("type")).isEqualTo("REDUCE_OF_FULL");
        assertThat(failure.getTextContent()).contains("REDUCE_OF_FULL stage #8 'allreduce' at /stages/8/ins/0 buffer 'partial.c0'");
        assertThat(((Element) cases.item(0)).getElementsByTagName("failure").getLength()).isZero();
    }

    @Test
    void junitOfAVerifiedProgramHasNoFailure() throws Exception {
        Path xml = authored.resolve("verify-ok.xml");
        CliRunner r = CliRunner.run("verify", PROGRAM, "--cert", CERT, "--unsplit", UNSPLIT, "--junit", xml.toString());
        assertThat(r.exit()).isZero();
        assertThat(Files.readString(xml)).contains("tests=\"4\" failures=\"0\" errors=\"0\"").doesNotContain("<failure");
    }

    @Test
    void junitAndSarifMayNotBeOneFile() {
        Path same = authored.resolve("same.out");
        CliRunner r = CliRunner.run("verify", PROGRAM, "--sarif", same.toString(), "--junit", same.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("same file");
    }
}
