package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;

import javax.xml.parsers.DocumentBuilderFactory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.spec.json.JsonReader;
import org.stagecheck.spec.json.ProgramCodec;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * {@code golden check} knows which program the values under test came from: {@code --program P}
 * must hash as the case's recorded program, and a run's {@code tensors.json} names the program it
 * ran, so outputs of another program version fail as PROGRAM_DIFFERS instead of passing.
 */
class GoldenProgramIdentityTest {
    private static final String V1 = "../examples/tiled-matmul-multicast.json";

    @TempDir
    Path tmp;

    private Path mm;
    private Path v2;
    private String v1Hash;
    private String v2Hash;

    /** A case recorded from v1; v2, the same matmul under a new version name: the same output names, shapes and even values. */
    @BeforeEach
    void recordV1AndWriteV2() throws Exception {
        mm = tmp.resolve("mm");
        CliRunner rec = CliRunner.run("golden", "record", V1, "--random", "1", "--out", mm.toString());
        assertThat(rec.exit()).as(rec.err()).isZero();
        v2 = tmp.resolve("v2.json");
        Files.writeString(v2, Files.readString(Path.of(V1)).replace("\"tiled-matmul-2x2-multicast\"", "\"tiled-matmul-2x2-multicast-v2\""));
        v1Hash = new ObjectMapper().readTree(mm.resolve("manifest.json").toFile()).at("/program/hash").asText();
        v2Hash = new ProgramCodec().hash(new ProgramCodec().read(new JsonReader().read(v2)));
        assertThat(v1Hash).startsWith("sha256:").isNotEqualTo(v2Hash);
    }

    private static JsonNode json(CliRunner r) throws Exception {
        return new ObjectMapper().readTree(r.out());
    }

    @Test
    void outputsOfARunOfAnotherProgramVersionFailAsProgramDiffers() throws Exception {
        Path act = tmp.resolve("act-v2");
        assertThat(CliRunner.run("run", v2.toString(), "--inputs", mm.toString(), "--out", act.toString()).exit()).isZero();

        // the outputs are v1's, bit for bit (a silent pass, before the run's index named its program)
        CliRunner r = CliRunner.run("golden", "check", mm.toString(), "--actual", act.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(1);
        assertThat(new ObjectMapper().readTree(act.resolve("tensors.json").toFile()).at("/program/hash").asText()).isEqualTo(v2Hash);
        assertThat(r.out()).contains("PROGRAM_DIFFERS mm").contains(v1Hash).contains(v2Hash).contains("tensors.json")
                .contains("1 program differs");
        JsonNode j = json(CliRunner.run("golden", "check", mm.toString(), "--actual", act.toString(), "--json"));
        assertThat(j.get("exitCode").asInt()).isEqualTo(1);
        assertThat(j.at("/cases/0/status").asText()).isEqualTo("program_differs");
        assertThat(j.at("/cases/0/programHash").asText()).isEqualTo(v1Hash);
        assertThat(j.at("/cases/0/message").asText()).contains(v2Hash);
        assertThat(j.at("/cases/0/outputs")).isEmpty();
        assertThat(j.at("/total/program_differs").asInt()).isEqualTo(1);

        // the values are the same: without the program's hash in the index (an older run, another tool) they pass
        Files.writeString(act.resolve("tensors.json"), "{\"format\": \"stagecheck-inputs\", \"version\": 1, \"tensors\": {\"c\": \"c.npy\"}}");
        CliRunner unnamed = CliRunner.run("golden", "check", mm.toString(), "--actual", act.toString());
        assertThat(unnamed.exit()).as(unnamed.out()).isZero();
    }

    @Test
    void outputsOfARunOfTheRecordedProgramPass() throws Exception {
        Path act = tmp.resolve("act-v1");
        assertThat(CliRunner.run("run", V1, "--inputs", mm.toString(), "--out", act.toString()).exit()).isZero();
        assertThat(new ObjectMapper().readTree(act.resolve("tensors.json").toFile()).at("/program/hash").asText()).isEqualTo(v1Hash);
        CliRunner r = CliRunner.run("golden", "check", mm.toString(), "--actual", act.toString(), "--program", V1);
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("PASS      mm");
    }

    @Test
    void theProgramUnderTestMustBeTheOneTheCaseWasRecordedFor() throws Exception {
        CliRunner same = CliRunner.run("golden", "check", mm.toString(), "--program", V1);
        assertThat(same.exit()).as(same.out() + same.err()).isZero();

        Path junit = tmp.resolve("junit.xml");
        CliRunner other = CliRunner.run("golden", "check", mm.toString(), "--program", v2.toString(), "--junit", junit.toString());
        assertThat(other.exit()).as(other.out() + other.err()).isEqualTo(1);
        assertThat(other.out()).contains("PROGRAM_DIFFERS mm").contains("recorded for program " + v1Hash)
                .contains("the program under test hashes to " + v2Hash);
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(Files.readAllBytes(junit)));
        Element failure = (Element) doc.getElementsByTagName("failure").item(0);
        assertThat(failure.getAttribute("type")).isEqualTo("PROGRAM_DIFFERS");
        assertThat(((Element) failure.getParentNode()).getAttribute("name")).isEqualTo("mm");
    }

    @Test
    void anUnreadableProgramOrRunIndexIsBadInput() throws Exception {
        CliRunner missing = CliRunner.run("golden", "check", mm.toString(), "--program", tmp.resolve("nope.json").toString());
        assertThat(missing.exit()).isEqualTo(2);
        assertThat(missing.err()).contains("nope.json").doesNotContain("Exception");

        Path act = tmp.resolve("act");
        assertThat(CliRunner.run("run", V1, "--inputs", mm.toString(), "--out", act.toString()).exit()).isZero();
        Files.writeString(act.resolve("tensors.json"), "{\"format\": \"stagecheck-inputs\", \"version\": 2, \"program\": {\"hash\": \"sha1:x\"}}");
        CliRunner bad = CliRunner.run("golden", "check", mm.toString(), "--actual", act.toString());
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.out()).contains("BAD_INPUT").contains("tensors.json").contains("/program/hash");
    }
}
