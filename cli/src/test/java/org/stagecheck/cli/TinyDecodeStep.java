package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tiny model's decode step (ctx 16), authored once per test class into a temporary directory:
 * the input of the kill tests of the commands that read a program ({@link #tiny()}).
 */
abstract class TinyDecodeStep {
    @TempDir
    static Path shared;

    /** The authored directory (program.json and its inputs). */
    static Path tiny() {
        return shared.resolve("tiny");
    }

    @BeforeAll
    static void authorTheTinyDecodeStep() {
        CliRunner a = CliRunner.run("author", "--model", "tiny", "--cut", "decode", "--ctx", "16", "--out", tiny().toString());
        assertThat(a.exit()).as(a.err()).isZero();
    }
}
