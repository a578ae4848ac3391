package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

/** The tiny model's decode step (ctx 16) authored into a directory, the input of the kill tests of commands that read a program. */
final class TinyDecodeStep {
    private TinyDecodeStep() {}

    /** Authors it into {@code dir}/tiny (in this JVM) and returns that directory. */
    static Path authoredIn(Path dir) {
        Path tiny = dir.resolve("tiny");
        CliRunner a = CliRunner.run("author", "--model", "tiny", "--cut", "decode", "--ctx", "16", "--out", tiny.toString());
        assertThat(a.exit()).as(a.err()).isZero();
        return tiny;
    }
}
