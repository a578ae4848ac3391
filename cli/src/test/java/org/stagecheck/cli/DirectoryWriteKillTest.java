package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every command that writes a directory writes it all or nothing ({@link KillHarness}): killed at
 * random moments, {@code author}, {@code golden record}, {@code reduce} and {@code run} leave
 * their output absent, as it was, or complete, and the rerun succeeds and removes what the kill
 * left (docs/format.md, "Output paths").
 */
@Tag("slow")
class DirectoryWriteKillTest {
    private static final String HAS_SLICE = "if grep -qE '\"type\" ?: ?\"slice\"' \"$STAGECHECK_PROGRAM\"; then echo 'found a Slice'; exit 3; fi";

    @TempDir
    static Path shared;

    @TempDir
    Path scratch;

    private static String tiny() {
        return shared.resolve("tiny").toString();
    }

    @BeforeAll
    static void authorTheTinyDecodeStep() {
        CliRunner a = CliRunner.run("author", "--model", "tiny", "--cut", "decode", "--ctx", "16", "--out", tiny());
        assertThat(a.exit()).as(a.err()).isZero();
    }

    @Test
    void author() throws Exception {
        new KillHarness("author", out -> List.of("author", "--model", "tiny", "--cut", "decode", "--ctx", "16", "--out", out.toString()),
                false, 4).check(scratch);
    }

    @Test
    void goldenRecord() throws Exception {
        new KillHarness("golden record", out -> List.of("golden", "record", tiny() + "/program.json", "--inputs", tiny(), "--trace", "--update",
                "--out", out.toString()), true, 4).check(scratch);
    }

    @Test
    void reduce() throws Exception {
        new KillHarness("reduce", out -> List.of("reduce", tiny() + "/program.json", "--inputs", tiny(), "--test", HAS_SLICE,
                "--out", out.toString()), false, 4).check(scratch);
    }

    @Test
    void run() throws Exception {
        new KillHarness("run", out -> List.of("run", tiny() + "/program.json", "--inputs", tiny(), "--trace", "--out", out.toString()),
                true, 4).check(scratch);
    }
}
