package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuthorCommandTest {
    @TempDir
    Path tmp;

    @Test
    void theAuthoredDecodeStepValidatesVerifiesAndRunsToANextToken() throws Exception {
        Path dir = tmp.resolve("tp2");
        CliRunner a = CliRunner.run("author", "--model", "tiny", "--cut", "decode", "--ctx", "8", "--tp", "2", "--out", dir.toString());
        assertThat(a.exit()).as(a.out() + a.err()).isZero();
        assertThat(dir.resolve("program.json")).exists();
        assertThat(dir.resolve("certificate.json")).exists();
        assertThat(dir.resolve("inputs.json")).exists();
        assertThat(CliRunner.run("validate", dir.resolve("program.json").toString()).exit()).isZero();
        CliRunner v = CliRunner.run("verify", dir.resolve("program.json").toString(), "--cert", dir.resolve("certificate.json").toString());
        assertThat(v.exit()).as(v.out()).isZero();
        CliRunner r = CliRunner.run("run", dir.resolve("program.json").toString(), "--inputs", dir.toString(), "--out", tmp.resolve("out").toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).containsPattern("next_token  i32\\[1\\] .* values \\[\\d+\\]");
        assertThat(tmp.resolve("out/logits.npy")).exists();
    }

    @Test
    @Tag("slow") // authors and runs the step on 1 and 2 chips
    void theSplitAndUnsplitStepsPickTheSameToken() {
        Path one = tmp.resolve("one");
        Path two = tmp.resolve("two");
        assertThat(CliRunner.run("author", "--model", "tiny", "--cut", "decode", "--ctx", "8", "--out", one.toString()).exit()).isZero();
        assertThat(CliRunner.run("author", "--model", "tiny", "--cut", "decode", "--ctx", "8", "--tp", "4", "--out", two.toString()).exit()).isZero();
        String a = CliRunner.run("run", one.resolve("program.json").toString(), "--inputs", one.toString(), "--out", tmp.resolve("o1").toString()).out();
        String b = CliRunner.run("run", two.resolve("program.json").toString(), "--inputs", two.toString(), "--out", tmp.resolve("o2").toString()).out();
        assertThat(token(b)).isEqualTo(token(a));
    }

    private static String token(String runOutput) {
        return runOutput.lines().filter(l -> l.startsWith("next_token")).findFirst().orElseThrow().replaceAll(".*values ", "");
    }

    @Test
    void refusedCombinationsAndBadOptionsAreExitTwoWithTheReason() throws Exception {
        CliRunner r = CliRunner.run("author", "--model", "tiny", "--cut", "prefill", "--rows", "2", "--ctx", "8", "--tp", "2", "--out", tmp.resolve("x").toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("CUT_NOT_SPLITTABLE");
        r = CliRunner.run("author", "--model", "tiny", "--cut", "decode", "--ctx", "8", "--tp", "3", "--out", tmp.resolve("y").toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("WIDTH_NOT_DIVISIBLE");
        r = CliRunner.run("author", "--model", "tiny", "--cut", "decode", "--out", tmp.resolve("z").toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("needs --ctx");
        r = CliRunner.run("author", "--model", "huge", "--cut", "decode", "--ctx", "8", "--out", tmp.resolve("w").toString());
        assertThat(r.exit()).isEqualTo(2);
        Path taken = tmp.resolve("taken");
        Files.createDirectories(taken);
        Files.writeString(taken.resolve("keep.txt"), "mine");
        r = CliRunner.run("author", "--model", "tiny", "--cut", "decode", "--ctx", "8", "--out", taken.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(Files.readString(taken.resolve("keep.txt"))).isEqualTo("mine");
    }
}
