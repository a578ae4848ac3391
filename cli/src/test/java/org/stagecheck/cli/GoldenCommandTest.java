package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import javax.xml.parsers.DocumentBuilderFactory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.Npy;
import org.w3c.dom.Document;

class GoldenCommandTest {
    @TempDir
    Path tmp;

    private Path suite;

    @BeforeEach
    void recordTwoCases() {
        suite = tmp.resolve("cases");
        assertThat(CliRunner.run("golden", "record", "../examples/tiled-matmul-multicast.json", "--random", "1",
                "--out", suite.resolve("mm").toString()).exit()).isZero();
        CliRunner ew = CliRunner.run("golden", "record", "../examples/elementwise-chain.json", "--random", "2", "--trace",
                "--tolerance", "ulp 1", "--out", suite.resolve("ew").toString());
        assertThat(ew.exit()).as(ew.err()).isZero();
        assertThat(ew.out()).contains("[ulp 1]").contains("traced");
    }

    private static JsonNode json(CliRunner r) throws Exception {
        return new ObjectMapper().readTree(r.out());
    }

    private static void noStackTrace(CliRunner r) {
        assertThat(r.err()).doesNotContain("\tat ").doesNotContain("Exception");
        assertThat(r.out()).doesNotContain("\tat ");
    }

    @Test
    void aSuiteIsCheckedCaseByCaseWithATotal() throws Exception {
        CliRunner r = CliRunner.run("golden", "check", suite.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out().lines()).hasSize(3);
        assertThat(r.out()).contains("PASS      ew  (interp)").contains("PASS      mm  (interp)")
                .contains("total: 2 case(s), 2 passed, 0 failed, 0 stale, 0 bad input");
        JsonNode j = json(CliRunner.run("golden", "check", suite.toString(), "--json"));
        assertThat(j.get("exitCode").asInt()).isZero();
        assertThat(j.get("cases")).hasSize(2);
        assertThat(j.at("/cases/1/outputs/0/minimalPassing/ulp").asLong()).isZero();
    }

    @Test
    void actualFilesFromAnyBackendMismatchWithReportsInEveryFormat() throws Exception {
        Path act = tmp.resolve("act");
        assertThat(CliRunner.run("run", "../examples/tiled-matmul-multicast.json", "--random", "1", "--out", act.toString()).exit()).isZero();
        Tensor c = Npy.read(act.resolve("c.npy"));
        float[] v = c.toFloats();
        v[2 * 32 + 5] += 0.25f;
        Npy.write(act.resolve("c.npy"), Tensor.fromFloats(c.dtype(), c.shape(), v));
        Path junit = tmp.resolve("reports/junit.xml");
        Path html = tmp.resolve("reports/report.html");
        Files.createDirectories(tmp.resolve("reports")); // report paths are checked, never created, before the work
        CliRunner r = CliRunner.run("golden", "check", suite.resolve("mm").toString(), "--actual", act.toString(),
                "--junit", junit.toString(), "--html", html.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(1);
        assertThat(r.out()).contains("FAIL      mm").contains("1 of 256 elements mismatch").contains("at [2, 5]")
                .contains("ULP histogram").contains("would pass with: ulp ");
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(Files.readAllBytes(junit)));
        assertThat(doc.getElementsByTagName("testcase").getLength()).isEqualTo(1);
        org.w3c.dom.Element test = (org.w3c.dom.Element) doc.getElementsByTagName("testcase").item(0);
        assertThat(test.getAttribute("name")).isEqualTo("mm/c");
        assertThat(Double.parseDouble(test.getAttribute("time"))).isGreaterThanOrEqualTo(0);
        assertThat(doc.getElementsByTagName("failure").getLength()).isEqualTo(1);
        assertThat(doc.getDocumentElement().getAttribute("failures")).isEqualTo("1");
        String page = Files.readString(html);
        assertThat(page).contains("<img class=\"heat\"").contains("data:image/png;base64,").doesNotContain("http://").doesNotContain("https://");
        JsonNode j = json(CliRunner.run("golden", "check", suite.resolve("mm").toString(), "--actual", act.toString(), "--json"));
        assertThat(j.get("exitCode").asInt()).isEqualTo(1);
        JsonNode out = j.at("/cases/0/outputs/0");
        assertThat(out.get("mismatches").asLong()).isEqualTo(1);
        assertThat(out.at("/maxAbs/index").toString()).isEqualTo("[2,5]");
        assertThat(out.at("/maxAbs/actual").asDouble() - out.at("/maxAbs/expected").asDouble()).isCloseTo(0.25, org.assertj.core.data.Offset.offset(1e-6));
    }

    @Test
    void staleCasesFailWithoutComparing() throws Exception {
        Path program = suite.resolve("mm/program.json");
        Files.writeString(program, Files.readString(program).replaceFirst("\"name\"\\s*:\\s*\"", "\"name\": \"edited-"));
        CliRunner r = CliRunner.run("golden", "check", suite.toString(), "--json");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(json(r).at("/cases/1/status").asText()).isEqualTo("stale");
        assertThat(json(r).at("/cases/1/outputs")).isEmpty();
    }

    @Test
    void badInputIsExitTwoNamingFileAndFieldWithJsonOnEveryOutcome() throws Exception {
        CliRunner missing = CliRunner.run("golden", "check", tmp.resolve("nope").toString());
        assertThat(missing.exit()).isEqualTo(2);
        assertThat(missing.err()).contains("nope").contains("no such case");
        noStackTrace(missing);
        CliRunner missingJson = CliRunner.run("golden", "check", tmp.resolve("nope").toString(), "--json");
        assertThat(json(missingJson).get("exitCode").asInt()).isEqualTo(2);

        Path mf = suite.resolve("ew/manifest.json");
        Files.writeString(mf, Files.readString(mf).replace("\"file\" : \"expected/000-y.npy\"", "\"file\" : \"../../y.npy\""));
        CliRunner escape = CliRunner.run("golden", "check", suite.toString());
        assertThat(escape.exit()).isEqualTo(2);
        assertThat(escape.out()).contains("BAD_INPUT").contains(mf.toString()).contains("/outputs/0/file").contains("leaves the case directory");
        noStackTrace(escape);

        Files.writeString(mf, "{ \"format\": ");
        CliRunner malformed = CliRunner.run("golden", "check", suite.resolve("ew").toString(), "--json");
        assertThat(malformed.exit()).isEqualTo(2);
        assertThat(json(malformed).at("/cases/0/message").asText()).contains(mf.toString()).contains("malformed JSON");

        CliRunner again = CliRunner.run("golden", "record", "../examples/tiled-matmul-multicast.json", "--random", "1",
                "--out", suite.resolve("mm").toString());
        assertThat(again.exit()).isEqualTo(2);
        assertThat(again.err()).contains("--update");
        assertThat(CliRunner.run("golden", "record", "../examples/tiled-matmul-multicast.json", "--random", "1", "--update",
                "--out", suite.resolve("mm").toString()).exit()).isZero();

        CliRunner policy = CliRunner.run("golden", "record", "../examples/tiled-matmul-multicast.json", "--random", "1",
                "--tolerance", "roughly", "--out", tmp.resolve("x").toString(), "--json");
        assertThat(policy.exit()).isEqualTo(2);
        assertThat(json(policy).get("error").asText()).contains("unknown tolerance policy 'roughly'");
        assertThat(tmp.resolve("x")).doesNotExist();

        CliRunner backend = CliRunner.run("golden", "check", suite.toString(), "--backend", "gpu9000");
        assertThat(backend.exit()).isEqualTo(2);
        assertThat(backend.err()).contains("unknown backend 'gpu9000'; one of interp");

        CliRunner noInputs = CliRunner.run("golden", "record", "../examples/tiled-matmul-multicast.json", "--out", tmp.resolve("y").toString());
        assertThat(noInputs.exit()).isEqualTo(2);
        assertThat(noInputs.err()).contains("give --inputs DIR or --random SEED");
        noStackTrace(noInputs);
    }

    @Test
    void recordingIsDeterministicThroughTheCommandLine() throws Exception {
        Path again = tmp.resolve("again");
        assertThat(CliRunner.run("golden", "record", "../examples/elementwise-chain.json", "--random", "2", "--trace",
                "--tolerance", "ulp 1", "--out", again.toString()).exit()).isZero();
        for (String f : new String[] {"manifest.json", "program.json", "expected/000-y.npy"}) {
            assertThat(Files.readAllBytes(again.resolve(f))).as(f).isEqualTo(Files.readAllBytes(suite.resolve("ew").resolve(f)));
        }
        assertThat(Files.readString(again.resolve("manifest.json"), StandardCharsets.UTF_8)).contains("\"stagecheck-golden-case\"")
                .contains("\"evaluation\" : \"interp f32\"");
    }

    @Test
    @Tag("slow") // writes and compares a tensor set per engine
    void theCompareBenchReportsEveryEngineOnTheSameData() {
        CliRunner r = CliRunner.run("bench", "compare", "--mib", "2", "--tensors", "2", "--repeats", "1", "--work", tmp.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("| stagecheck | allclose 1.3e-6 1e-5 |").contains("| stagecheck | derived |");
        assertThat(r.out().lines().filter(l -> l.startsWith("| stagecheck") || l.startsWith("| numpy"))).allMatch(l -> l.endsWith("| true |"));
        // numpy either ran on the same data or the table says why not
        assertThat(r.out()).containsAnyOf("| numpy | np.allclose", "numpy not measured");
    }
}
