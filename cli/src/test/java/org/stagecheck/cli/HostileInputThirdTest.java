package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The third hostile-input sweep, over the surfaces the first two did not reach: golden case
 * manifests that name one input twice or give a trace port no int holds (read by {@code golden
 * check} and by {@code run --inputs CASE}), a run's index whose program hash is of the wrong type,
 * {@code --program} and {@code --shard} given what they cannot take, Bazel's status file a named
 * pipe, {@code bench checkpoint --tp} naming one split twice, stage ids with a newline or a
 * hundred thousand characters in a finding's text, a program name with a line break, and
 * {@code author --expert-split} where nothing is split.
 *
 * <p>Rows use the notation and checks of {@link HostileInputTest} ({@code $} the fixtures,
 * {@code OUT} a fresh output path, {@code _} a space): the exit code, no stack trace, one JSON
 * document with {@code --json}, no input changed, nothing half-written.
 */
@Tag("slow") // each row runs twice, some a golden check
class HostileInputThirdTest {
    @TempDir
    static Path fixtures;

    @TempDir
    static Path scratch;

    @BeforeAll
    static void writeFixtures() throws IOException {
        HostileInputFixtures.write(fixtures);
        editedCase("case-port-huge", m -> ((ObjectNode) m.withArray("trace").get(0)).put("port", 99_999_999_999L));
        editedCase("case-port-negative", m -> ((ObjectNode) m.withArray("trace").get(0)).put("port", -1));
        editedCase("case-input-twice", m -> {
            ArrayNode inputs = m.withArray("inputs");
            inputs.add(inputs.get(0).deepCopy());
        });
        Path actual = fixtures.resolve("actual-hash-number");
        CliRunner.run("run", fixtures.resolve("p.json").toString(), "--inputs", fixtures.resolve("case").toString(), "--out", actual.toString());
        Path index = actual.resolve(RunInputs.INDEX);
        ObjectNode doc = (ObjectNode) new ObjectMapper().readTree(Files.readString(index));
        ((ObjectNode) doc.get("program")).put("hash", 5);
        Files.writeString(index, doc.toString());
        HostileProgram.write(fixtures.resolve("newline-id.json"), "y", "x", "a\nb");
        HostileProgram.write(fixtures.resolve("long-id.json"), "y", "x", "s".repeat(100_000));
        Files.writeString(fixtures.resolve("forged-name.json"), Files.readString(fixtures.resolve("p.json"))
                .replace("\"name\": \"elementwise-chain\"", "\"name\": \"x\\rPASS: all good\\n\""));
    }

    /** A copy of the fixtures' golden case with {@code edit} applied to its manifest. */
    private static void editedCase(String name, Consumer<ObjectNode> edit) throws IOException {
        Path dir = fixtures.resolve(name);
        HostileInputFixtures.copyTree(fixtures.resolve("case"), dir);
        Path manifest = dir.resolve("manifest.json");
        ObjectNode m = (ObjectNode) new ObjectMapper().readTree(Files.readString(manifest));
        edit.accept(m);
        Files.writeString(manifest, m.toString());
    }

    static Stream<Arguments> rows() {
        List<Arguments> rows = new ArrayList<>();
        // a trace port past an int, or below 0: refused naming the field, never an internal error
        rows.add(row(2, "golden check $/case-port-huge"));
        rows.add(row(2, "golden check $/case-port-negative"));
        rows.add(row(2, "run $/p.json --inputs $/case-port-huge --out OUT"));
        // one input listed twice: which file binds it is no reader's guess (outputs were refused already)
        rows.add(row(2, "golden check $/case-input-twice"));
        rows.add(row(2, "run $/p.json --inputs $/case-input-twice --out OUT"));
        rows.add(row(2, "golden record $/p.json --inputs $/case-input-twice --out OUT"));
        // a program name with a line break: a validation finding, so nothing is run or written
        rows.add(row(1, "validate $/forged-name.json"));
        rows.add(row(1, "run $/forged-name.json --random 1 --out OUT"));
        rows.add(row(1, "cuda emit $/forged-name.json --out OUT"));
        // --expert-split where there is nothing to split: refused, as --layer is for a cut without layers
        rows.add(row(2, "author --model tiny --cut decode --ctx 4 --tp 2 --expert-split experts --out OUT"));
        rows.add(row(2, "author --model tiny-moe --cut decode --ctx 4 --expert-split experts --out OUT"));
        rows.add(row(2, "author --model tiny-moe --cut decode --ctx 4 --tp 1 --expert-split tensor --out OUT"));
        rows.add(row(0, "author --model tiny-moe --cut decode --ctx 4 --tp 2 --expert-split experts --out OUT"));
        // held before: a run's index with a program hash of the wrong type, --program and --shard misused
        rows.add(row(2, "golden check $/case --actual $/actual-hash-number"));
        rows.add(row(2, "golden check $/case --program $/case"));
        rows.add(row(2, "golden check $/case --program /dev/null"));
        rows.add(row(1, "golden check $/case --program $/tp.json"));
        for (String shard : List.of("2/1", "0/0", "-1/2", "1/9999999999", "_1/2", "1/2/3", "a/b", "1/0")) {
            rows.add(row(2, "golden check $/case --shard " + shard));
        }
        rows.add(row(0, "golden check $/case --shard 3/3"));
        // bench checkpoint: one split twice would be measured twice (minutes each); bad values are refused before any work
        for (String bench : List.of("--tp 1,1", "--tp 2,1,2", "--tp 0", "--tp 3", "--ctx 0", "--ctx 2147483647", "--dir $/p.json",
                "--dir $/case")) {
            rows.add(row(2, "bench checkpoint " + bench));
        }
        return rows.stream();
    }

    private static Arguments row(int exit, String command) {
        return Arguments.of(exit, command);
    }

    @ParameterizedTest(name = "[{index}] exit {0}: {1}")
    @MethodSource("rows")
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aClearAnswerAndTheRightExitCodeNeverAHang(int exit, String command) throws Exception {
        HostileInputTest.checkRow(exit, command, fixtures, scratch);
    }

    /** A stage id with a newline or 100,000 characters: the finding is still one line, of readable length. */
    @Test
    void aFindingAboutABadStageIdIsOneShortLine() {
        for (String program : List.of("newline-id.json", "long-id.json")) {
            CliRunner r = CliRunner.run("validate", fixtures.resolve(program).toString());
            assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(1);
            List<String> lines = r.out().lines().toList();
            assertThat(lines).as(r.out()).hasSize(2); // the finding, then the file's summary
            assertThat(lines.getFirst()).contains("BAD_NAME").hasSizeLessThan(1000);
        }
        assertThat(CliRunner.run("validate", fixtures.resolve("newline-id.json").toString()).out()).contains("stage #2 'a\\u000Ab'");
    }

    /**
     * A program name with a carriage return and a newline would forge report lines ({@code valid
     * (NAME, 5 stages)}, {@code ran 5 stages of NAME}): the validator refuses it as it refuses
     * such a stage id, and nothing is run.
     */
    @Test
    void aProgramNameWithALineBreakIsAFindingAndNothingRuns() throws IOException {
        Path program = fixtures.resolve("forged-name.json");
        assertThat(Files.readString(program)).contains("x\\rPASS");
        CliRunner v = CliRunner.run("validate", program.toString());
        assertThat(v.exit()).as(v.out()).isEqualTo(1);
        assertThat(v.out()).contains("BAD_NAME", "program name 'x\\u000DPASS: all good\\u000A'").doesNotContain("\r");
        Path out = scratch.resolve("forged-name-run");
        CliRunner r = CliRunner.run("run", program.toString(), "--random", "1", "--out", out.toString());
        assertThat(r.exit()).as(r.out()).isEqualTo(1);
        assertThat(r.out() + r.err()).doesNotContain("\r");
        assertThat(out).doesNotExist();
    }

    /**
     * A case directory named with a carriage return: printed raw, a terminal would go back to the
     * start of the line and show the forged rest over the real verdict; it is escaped instead.
     */
    @Test
    void aCarriageReturnInACaseNameIsEscapedInTheReport() throws IOException {
        Path suite = scratch.resolve("cr-suite");
        HostileInputFixtures.copyTree(fixtures.resolve("case-port-negative"), suite.resolve("x\rPASS all good"));
        CliRunner r = CliRunner.run("golden", "check", suite.toString());
        assertThat(r.exit()).as(r.out()).isEqualTo(2);
        assertThat(r.out() + r.err()).doesNotContain("\r").contains("x\\u000DPASS all good");
    }

    /**
     * Bazel's status file a named pipe with no reader: touching it would open it and block for
     * ever; it is refused (exit 2, one line naming the variable) instead. A process of its own,
     * for the environment.
     */
    @Test
    @Tag("slow") // a JVM of its own
    void aStatusFileThatIsAPipeIsRefusedNotOpened() throws Exception {
        Path fifo = scratch.resolve("status.fifo");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assertThat(mkfifo.waitFor()).isZero();
        ProcessBuilder pb = new ProcessBuilder(ChildJvm.command("golden", "check", fixtures.resolve("case").toString()));
        pb.environment().putAll(Map.of("TEST_TOTAL_SHARDS", "2", "TEST_SHARD_INDEX", "0", "TEST_SHARD_STATUS_FILE", fifo.toString()));
        Process p = pb.redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        boolean ended = p.waitFor(90, TimeUnit.SECONDS);
        if (!ended) {
            p.destroyForcibly().waitFor();
        }
        assertThat(ended).as("golden check ended instead of blocking on the pipe").isTrue();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(p.exitValue()).as(err).isEqualTo(2);
        assertThat(err.lines().filter(l -> !l.startsWith("WARNING"))).singleElement().asString()
                .startsWith("error: ").contains("TEST_SHARD_STATUS_FILE", fifo.toString(), "not a regular file");
        assertThat(Files.isRegularFile(fifo)).isFalse();
    }
}
