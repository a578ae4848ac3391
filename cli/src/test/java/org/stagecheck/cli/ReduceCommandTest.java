package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.json.JsonReader;
import org.stagecheck.spec.json.ProgramCodec;

/** {@code stagecheck reduce}: the test command decides, the minimal program and its inputs are written and run. */
class ReduceCommandTest {
    /** Fails (exit 3, saying so) exactly when the candidate holds a Slice. */
    private static final String HAS_SLICE = "if grep -qE '\"type\" ?: ?\"slice\"' \"$STAGECHECK_PROGRAM\"; then echo 'found a Slice'; exit 3; fi";

    @TempDir
    static Path dir;

    @BeforeAll
    static void authorTinyDecode() {
        CliRunner a = CliRunner.run("author", "--model", "tiny", "--cut", "decode", "--ctx", "16", "--out", dir.resolve("decode").toString());
        assertThat(a.exit()).as(a.err()).isZero();
    }

    private static Program read(Path file) throws Exception {
        return new ProgramCodec().read(new JsonReader().read(file));
    }

    @Test
    void shrinksToAFewStagesThatStillFailTheSameWayAndWritesARunnableProgram() throws Exception {
        Path out = dir.resolve("min");
        CliRunner r = CliRunner.run("reduce", dir.resolve("decode/program.json").toString(), "--inputs", dir.resolve("decode").toString(),
                "--test", HAS_SLICE, "--match", "found a \\w+", "--out", out.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("still 'exit 3 / found a Slice'").doesNotContain("reducing ");
        assertThat(r.err()).as("progress goes to stderr").contains("reducing ").contains("cut at stage");
        assertThat(out.resolve("case/manifest.json")).as("the golden case of the minimal program").isRegularFile();
        Program min = read(out.resolve("program.json"));
        Program original = read(dir.resolve("decode/program.json"));
        assertThat(min.stages()).hasSizeLessThanOrEqualTo(3).hasSizeLessThan(original.stages().size());
        assertThat(min.stages()).anyMatch(s -> s.kind() instanceof StageKind.Compute(ComputeOp.Slice sl));
        CliRunner run = CliRunner.run("run", out.resolve("program.json").toString(), "--inputs", out.toString(), "--out", dir.resolve("min-run").toString());
        assertThat(run.exit()).as(run.out() + run.err()).isZero();
        assertThat(Files.list(dir).filter(p -> p.getFileName().toString().startsWith(".min"))).as("no temporary directory is left").isEmpty();
    }

    @Test
    @Tag("slow") // a second whole reduction
    void jsonGivesTheSizesBeforeAndAfter() {
        Path out = dir.resolve("min-json");
        CliRunner r = CliRunner.run("reduce", dir.resolve("decode/program.json").toString(), "--inputs", dir.resolve("decode").toString(),
                "--test", HAS_SLICE, "--out", out.toString(), "--json");
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("\"outcome\" : \"reduced\"").contains("\"failure\" : \"exit 3\"").contains("\"before\"").contains("\"after\"")
                .contains("\"steps\"").contains("\"millis\"").contains("\"goldenCase\"").doesNotContain("reducing ");
        assertThat(r.out().strip()).startsWith("{").endsWith("}");
    }

    @Test
    void aProgramThatPassesTheTestIsExitOneAndWritesNothing() {
        Path out = dir.resolve("none");
        CliRunner r = CliRunner.run("reduce", dir.resolve("decode/program.json").toString(), "--inputs", dir.resolve("decode").toString(),
                "--test", "true", "--out", out.toString());
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.out()).contains("the program passes the test command: nothing to reduce");
        assertThat(out).doesNotExist();
    }

    @Test
    void badInputIsExitTwoWithAReason() throws Exception {
        String program = dir.resolve("decode/program.json").toString();
        String inputs = dir.resolve("decode").toString();
        CliRunner regex = CliRunner.run("reduce", program, "--inputs", inputs, "--test", "false", "--match", "(", "--out", dir.resolve("x").toString());
        assertThat(regex.exit()).isEqualTo(2);
        assertThat(regex.err()).startsWith("error: --match is not a regular expression");
        Path full = Files.createDirectories(dir.resolve("full"));
        Files.writeString(full.resolve("keep.txt"), "mine");
        CliRunner notEmpty = CliRunner.run("reduce", program, "--inputs", inputs, "--test", "false", "--out", full.toString());
        assertThat(notEmpty.exit()).isEqualTo(2);
        assertThat(notEmpty.err()).contains("is not empty");
        assertThat(full.resolve("keep.txt")).hasContent("mine");
        CliRunner noInputs = CliRunner.run("reduce", program, "--inputs", dir.resolve("nowhere").toString(), "--test", "false", "--out", dir.resolve("y").toString(), "--json");
        assertThat(noInputs.exit()).isEqualTo(2);
        assertThat(noInputs.out()).contains("\"outcome\" : \"bad-input\"");
        CliRunner noTest = CliRunner.run("reduce", program, "--inputs", inputs, "--out", dir.resolve("z").toString());
        assertThat(noTest.exit()).isEqualTo(2);
    }

    @Test
    void aTestCommandTheShellCannotRunIsBadInputNotAFailureToShrink() throws Exception {
        String program = dir.resolve("decode/program.json").toString();
        String inputs = dir.resolve("decode").toString();
        CliRunner missing = CliRunner.run("reduce", program, "--inputs", inputs, "--test", "no-such-check-command-xyz",
                "--out", dir.resolve("m").toString());
        assertThat(missing.exit()).isEqualTo(2);
        assertThat(missing.err()).contains("the test command could not be run (exit 127: command not found)");
        assertThat(dir.resolve("m")).doesNotExist();
        Path script = dir.resolve("not-executable.sh");
        Files.writeString(script, "exit 1\n");
        CliRunner notExecutable = CliRunner.run("reduce", program, "--inputs", inputs, "--test", script.toString(),
                "--out", dir.resolve("n").toString(), "--json");
        assertThat(notExecutable.exit()).isEqualTo(2);
        assertThat(notExecutable.out()).contains("\"outcome\" : \"bad-input\"", "not executable");
        assertThat(dir.resolve("n")).doesNotExist();
    }
}
