package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Nearest-name suggestions for unknown options, commands, tensors in --bind and parameters in --param. */
class DidYouMeanTest {
    private static final String PROGRAM = "../examples/tp2-matmul-allreduce.json";

    @TempDir
    Path tmp;

    @Test
    void anUnknownOptionSuggestsTheNearestOption() {
        CliRunner r = CliRunner.run("run", PROGRAM, "--random", "1", "--out", tmp.resolve("o").toString(), "--tarce");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("Unknown option: '--tarce'; did you mean '--trace'?");
        CliRunner far = CliRunner.run("verify", PROGRAM, "--zzzzzzzz");
        assertThat(far.err()).contains("Unknown option: '--zzzzzzzz'").doesNotContain("did you mean");
    }

    @Test
    void anUnknownCommandSuggestsTheNearestCommand() {
        assertThat(CliRunner.run("verfy", PROGRAM).err()).contains("did you mean 'verify'?");
        assertThat(CliRunner.run("golden", "chek").err()).contains("did you mean 'check'?");
    }

    @Test
    void anUnknownTensorInBindSuggestsTheNearestBoundTensor() {
        CliRunner r = CliRunner.run("run", PROGRAM, "--random", "1", "--out", tmp.resolve("o").toString(), "--bind", "w_0.0=x.npy");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--bind 'w_0.0': the program has no input, weight or state tensor of that name; did you mean 'w_o.0'?");
    }

    @Test
    void anUnknownParameterSuggestsTheNearestParameter() {
        Path authored = tmp.resolve("a");
        assertThat(CliRunner.run("author", "--model", "tiny", "--cut", "decode", "--ctx", "8", "--out", authored.toString()).exit()).isZero();
        CliRunner r = CliRunner.run("run", authored.resolve("program.json").toString(), "--inputs", authored.toString(),
                "--out", tmp.resolve("o").toString(), "--param", "poss=1");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("'poss', which is not a parameter of the program").contains("For 'poss', did you mean 'pos'?");
    }
}
