package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.cuda.compile.Toolchain;
import org.stagecheck.cuda.runtime.CudaDriver;
import org.stagecheck.cuda.runtime.LaunchException;

/**
 * {@code stagecheck cuda check --emulate} passes every check on the real suite (the device
 * benchmark skipped, saying why); an expected output edited in a golden case fails exactly the
 * checks that judge that case, exit 1, and the table names them; bad input is exit 2 in one line.
 */
class CudaCheckCommandTest {
    private static final String EXAMPLES = "../examples";
    private static final String CASES = "../golden/cases";

    @TempDir
    Path tmp;

    private static void needsHostCompiler() {
        assumeTrue(Toolchain.fromEnvironment().cxx() != null, "no g++: host emulation cannot be built here");
    }

    /** check name to result word, from the JSON report. */
    private static Map<String, String> results(JsonNode doc) {
        Map<String, String> m = new LinkedHashMap<>();
        for (JsonNode c : doc.get("checks")) {
            m.put(c.get("check").asText(), c.get("result").asText());
            assertThat(c.get("backend").asText()).isEqualTo("cuda-emu");
        }
        return m;
    }

    @Test
    @Tag("slow") // compiles the whole suite for host emulation
    void everyCheckPassesInEmulationOnTheRealSuite() throws Exception {
        needsHostCompiler();
        CliRunner r = CliRunner.run("cuda", "check", "--emulate", "--examples", EXAMPLES, "--cases", CASES, "--json");
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        JsonNode doc = new ObjectMapper().readTree(r.out());
        assertThat(doc.get("holds").asBoolean()).isTrue();
        Map<String, String> results = results(doc);
        try (Stream<Path> files = Files.list(Path.of(EXAMPLES))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".json")).toList()) {
                assertThat(results).containsEntry("example " + f.getFileName().toString().replace(".json", ""), "passed");
            }
        }
        assertThat(results).containsEntry("compile", "passed").containsEntry("conformance", "passed")
                .containsEntry("golden tiny-decode", "passed").containsEntry("golden tiny-decode graphs", "passed")
                .containsEntry("golden tiny-decode-tp2", "passed").containsEntry("golden tiny-decode-tp2 graphs", "passed")
                .containsEntry("graphs stale recapture", "passed").containsEntry("graphs capture failure", "passed")
                .containsEntry("bench", "skipped");
        assertThat(doc.get("bench").isNull()).isTrue();
        // no progress lines with --json
        assertThat(r.err()).isEmpty();
    }

    @Test
    void anEditedExpectedOutputFailsTheChecksOfThatCaseAndExitsOne() throws Exception {
        needsHostCompiler();
        Path cases = tmp.resolve("cases");
        for (String name : CudaCheckInputs.CASES) {
            copyTree(Path.of(CASES, name), cases.resolve(name));
        }
        Path logits = cases.resolve("tiny-decode/expected/004-logits.npy");
        byte[] bytes = Files.readAllBytes(logits);
        // the last element (the data ends the file) becomes 1e30, far outside any recorded policy
        ByteBuffer.wrap(bytes, bytes.length - 4, 4).order(ByteOrder.LITTLE_ENDIAN).putFloat(1e30f);
        Files.write(logits, bytes);
        CliRunner r = CliRunner.run("cuda", "check", "--emulate", "--examples", EXAMPLES, "--cases", cases.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(1);
        List<String> lines = r.out().lines().toList();
        assertThat(lines).anyMatch(l -> l.matches("golden tiny-decode +cuda-emu +failed .*logits.*"));
        assertThat(lines).anyMatch(l -> l.matches("golden tiny-decode graphs +cuda-emu +failed .*logits.*"));
        assertThat(lines).anyMatch(l -> l.matches("golden tiny-decode-tp2 +cuda-emu +passed .*"));
        assertThat(lines).anyMatch(l -> l.matches("conformance +cuda-emu +passed .*"));
        assertThat(lines.getLast()).startsWith("FAILED:");
    }

    @Test
    void aMissingCaseIsBadInputInOneLine() {
        CliRunner r = CliRunner.run("cuda", "check", "--emulate", "--examples", EXAMPLES, "--cases", tmp.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err().strip()).doesNotContain("\n").startsWith("error: --cases").contains("no case 'tiny-decode'");
    }

    @Test
    void aFileThatIsNoProgramIsBadInput() throws Exception {
        Path examples = tmp.resolve("examples");
        Files.createDirectories(examples);
        Files.writeString(examples.resolve("broken.json"), "{\"not\": \"a program\"");
        CliRunner r = CliRunner.run("cuda", "check", "--emulate", "--examples", examples.toString(), "--cases", CASES, "--json");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err().strip()).doesNotContain("\n").startsWith("error: ").contains("broken.json");
        assertThat(r.out()).contains("\"status\" : \"bad-input\"", "\"checks\" : [ ]");
    }

    @Test
    void withoutADriverTheDeviceCheckIsBadInput() {
        needsHostCompiler();
        try {
            CudaDriver.system();
            assumeTrue(false, "a CUDA driver is present: the device check would run");
        } catch (LaunchException expected) {
            // no driver: the case under test
        }
        CliRunner r = CliRunner.run("cuda", "check", "--examples", EXAMPLES, "--cases", CASES);
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err().strip()).doesNotContain("\n").startsWith("error: no CUDA driver").contains("--emulate");
    }

    private static void copyTree(Path from, Path to) throws Exception {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.toList()) {
                Path t = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t);
                }
            }
        }
    }
}
