package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fourth hostile-input sweep: output locations that hold what a command must not lose or mix
 * with its own files. {@code cuda emit --out} writes its directory whole and replaces only an
 * earlier emit's, as {@code run --out} does (docs/format.md, "Output paths").
 */
class HostileInputs4Test {
    private static final String CHAIN = "../examples/elementwise-chain.json";
    private static final String TP2 = "../examples/tp2-matmul-allreduce.json";

    @TempDir
    Path tmp;

    private static List<String> names(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** Exit 2, one line on stderr holding every mention, no stack trace. */
    private static void refused(CliRunner r, String... mentions) {
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(2);
        String err = r.err().strip();
        assertThat(err.lines().count()).as(err).isEqualTo(1);
        assertThat(err).startsWith("error: ").contains(mentions).doesNotContain("Exception").doesNotContain("\tat ");
    }

    /** A directory of the user's (here a run's output) is refused whole: nothing added, nothing lost. */
    @Test
    void cudaEmitIntoADirectoryHoldingOtherFilesIsRefusedAndLeavesItAsItWas() throws IOException {
        Path runOut = tmp.resolve("run-out");
        assertThat(CliRunner.run("run", CHAIN, "--random", "1", "--out", runOut.toString()).exit()).isZero();
        List<String> before = names(runOut);
        for (boolean json : List.of(false, true)) {
            CliRunner r = json ? CliRunner.run("cuda", "emit", CHAIN, "--out", runOut.toString(), "--json")
                    : CliRunner.run("cuda", "emit", CHAIN, "--out", runOut.toString());
            refused(r, runOut.toString(), "tensors.json", "y.npy", "choose another directory");
            assertThat(names(runOut)).isEqualTo(before);
        }
    }

    /** The program's own directory as the output: its files stay its own. */
    @Test
    void cudaEmitIntoTheProgramsOwnDirectoryIsRefused() throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("programs"));
        Path program = dir.resolve("p.json");
        Files.copy(Path.of(CHAIN), program);
        refused(CliRunner.run("cuda", "emit", program.toString(), "--out", dir.toString()), "p.json");
        assertThat(names(dir)).containsExactly("p.json");
    }

    /** An earlier emit's directory is replaced whole by the new program's source. */
    @Test
    void cudaEmitReplacesAnEarlierEmitWhole() throws IOException {
        Path out = tmp.resolve("cu");
        assertThat(CliRunner.run("cuda", "emit", TP2, "--out", out.toString()).exit()).isZero();
        assertThat(Files.readString(out.resolve("kernels.tsv"))).contains("allreduce");
        CliRunner r = CliRunner.run("cuda", "emit", CHAIN, "--out", out.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(names(out)).containsExactly("kernels.tsv", "program.cu", "sc_rt.h");
        assertThat(Files.readString(out.resolve("kernels.tsv"))).contains("silu").doesNotContain("allreduce");
        assertThat(names(tmp)).containsExactly("cu");
    }
}
