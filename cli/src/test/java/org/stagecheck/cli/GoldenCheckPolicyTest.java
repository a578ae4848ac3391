package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.Npy;

/** {@code golden check --policy P}: every output judged by P instead of its recorded policy, in every report. */
@Tag("slow")
class GoldenCheckPolicyTest {
    @TempDir
    Path tmp;

    private Path mm;
    private Path oneUlpOff;

    /** A matmul case recorded under derived, and its outputs with every element one ULP up (what a differently rounding backend writes). */
    @BeforeEach
    void recordAndWriteOutputsOneUlpOff() throws Exception {
        mm = tmp.resolve("mm");
        CliRunner rec = CliRunner.run("golden", "record", "../examples/tiled-matmul-multicast.json", "--random", "1", "--out", mm.toString());
        assertThat(rec.exit()).as(rec.err()).isZero();
        oneUlpOff = tmp.resolve("act");
        assertThat(CliRunner.run("run", "../examples/tiled-matmul-multicast.json", "--random", "1", "--out", oneUlpOff.toString()).exit()).isZero();
        Tensor c = Npy.read(oneUlpOff.resolve("c.npy"));
        float[] v = c.toFloats();
        for (int i = 0; i < v.length; i++) {
            v[i] = Math.nextUp(v[i]);
        }
        Npy.write(oneUlpOff.resolve("c.npy"), Tensor.fromFloats(c.dtype(), c.shape(), v));
    }

    private static JsonNode json(CliRunner r) throws Exception {
        return new ObjectMapper().readTree(r.out());
    }

    private static void noStackTrace(CliRunner r) {
        assertThat(r.err()).doesNotContain("\tat ").doesNotContain("Exception");
        assertThat(r.out()).doesNotContain("\tat ");
    }

    @Test
    void exactFailsOutputsOneUlpOffThatTheRecordedPolicyAndUlpOnePass() {
        CliRunner recorded = CliRunner.run("golden", "check", mm.toString(), "--actual", oneUlpOff.toString());
        assertThat(recorded.exit()).as(recorded.out() + recorded.err()).isZero();
        assertThat(recorded.out()).contains("PASS      mm  (files " + oneUlpOff + ")  1 output(s), policy derived");

        CliRunner exact = CliRunner.run("golden", "check", mm.toString(), "--actual", oneUlpOff.toString(), "--policy", "exact");
        assertThat(exact.exit()).as(exact.out() + exact.err()).isEqualTo(1);
        assertThat(exact.out()).contains("FAIL      mm").contains("c: FAIL [exact] f32[8, 32]; 256 of 256 elements mismatch")
                .contains("ULP histogram: 1: 256").contains("would pass with: ulp 1 |");

        CliRunner ulp = CliRunner.run("golden", "check", mm.toString(), "--actual", oneUlpOff.toString(), "--policy", "ulp 1");
        assertThat(ulp.exit()).as(ulp.out() + ulp.err()).isZero();
        assertThat(ulp.out()).contains("PASS      mm  (files " + oneUlpOff + ")  1 output(s), policy ulp 1");
    }

    @Test
    void everyReportNamesThePolicyApplied() throws Exception {
        Path junit = tmp.resolve("junit.xml");
        Path html = tmp.resolve("report.html");
        CliRunner r = CliRunner.run("golden", "check", mm.toString(), "--actual", oneUlpOff.toString(), "--policy", "exact", "--json",
                "--junit", junit.toString(), "--html", html.toString());
        assertThat(r.exit()).isEqualTo(1);
        JsonNode j = json(r);
        assertThat(j.get("policyOverride").asText()).isEqualTo("exact");
        assertThat(j.at("/cases/0/outputs/0/policy").asText()).isEqualTo("exact");
        assertThat(j.at("/cases/0/outputs/0/minimalPassing/ulp").asLong()).isEqualTo(1);
        assertThat(Files.readString(junit)).contains("c: FAIL [exact]");
        assertThat(Files.readString(html)).contains("c: FAIL [exact]");
        // without --policy the JSON says so, and each output names its recorded policy
        JsonNode recorded = json(CliRunner.run("golden", "check", mm.toString(), "--actual", oneUlpOff.toString(), "--json"));
        assertThat(recorded.get("policyOverride").isNull()).isTrue();
        assertThat(recorded.at("/cases/0/outputs/0/policy").asText()).isEqualTo("derived");
    }

    @Test
    void theOverrideAppliesToABackendAndToEveryCaseOfASuite() throws Exception {
        Path ew = tmp.resolve("ew");
        assertThat(CliRunner.run("golden", "record", "../examples/elementwise-chain.json", "--random", "2", "--tolerance", "ulp 1",
                "--out", ew.toString()).exit()).isZero();
        CliRunner r = CliRunner.run("golden", "check", mm.toString(), ew.toString(), "--backend", "interp", "--policy", "exact", "--json");
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        JsonNode j = json(r);
        assertThat(j.at("/cases/0/outputs/0/policy").asText()).isEqualTo("exact");
        assertThat(j.at("/cases/1/outputs/0/policy").asText()).isEqualTo("exact");
        CliRunner text = CliRunner.run("golden", "check", mm.toString(), ew.toString(), "--policy", "allclose 1e-3 1e-6");
        assertThat(text.exit()).isZero();
        assertThat(text.out()).contains("PASS      mm  (interp)  1 output(s), policy allclose 0.001 1e-6")
                .contains("PASS      ew  (interp)  1 output(s), policy allclose 0.001 1e-6");
    }

    @ParameterizedTest
    @ValueSource(strings = {"roughly", "ulp", "ulp -1", "ulp 1.5", "allclose 1e-3", "pcc 2", "derived 0", ""})
    void aBadSpellingIsExitTwoWithOneLineAndTheJsonErrorDocument(String spelling) throws Exception {
        CliRunner text = CliRunner.run("golden", "check", mm.toString(), "--actual", oneUlpOff.toString(), "--policy", spelling);
        assertThat(text.exit()).isEqualTo(2);
        assertThat(text.err().lines()).hasSize(1);
        assertThat(text.err()).startsWith("error: --policy: ");
        assertThat(text.out()).isEmpty();
        noStackTrace(text);
        CliRunner j = CliRunner.run("golden", "check", mm.toString(), "--policy", spelling, "--json");
        assertThat(j.exit()).isEqualTo(2);
        JsonNode doc = json(j);
        assertThat(doc.get("command").asText()).isEqualTo("golden check");
        assertThat(doc.get("exitCode").asInt()).isEqualTo(2);
        assertThat(doc.get("status").asText()).isEqualTo("bad-input");
        assertThat(doc.get("error").asText()).startsWith("--policy: ");
        assertThat(doc.get("cases")).isEmpty();
    }

    @Test
    void derivedOnAFloatingOutputRecordedWithoutAToleranceFileIsBadInput() throws Exception {
        Path mf = mm.resolve("manifest.json");
        Files.writeString(mf, Files.readString(mf).replaceAll(",\\s*\"tolerance\"\\s*:\\s*\"[^\"]*\"", ""));
        CliRunner r = CliRunner.run("golden", "check", mm.toString(), "--actual", oneUlpOff.toString(), "--policy", "derived");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).contains("BAD_INPUT").contains("/outputs/0/tolerance").contains("has no tolerance file");
        assertThat(r.err()).contains("policy 'derived' cannot judge it");
        noStackTrace(r);
        assertThat(CliRunner.run("golden", "check", mm.toString(), "--actual", oneUlpOff.toString(), "--policy", "ulp 1").exit()).isZero();
    }
}
