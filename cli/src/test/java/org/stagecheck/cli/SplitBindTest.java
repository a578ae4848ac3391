package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.Npy;

/**
 * {@code --bind NAME=FILE} on an authored split: the logical name binds every chip's copy (read
 * from the certificate beside the program, from {@code --cert}, or from the chips' names), so the
 * split computes what the unsplit program computes on the same tokens; a tensor the chips hold
 * in parts is refused with its parts; copies bound to different values are a warning.
 */
class SplitBindTest {
    @TempDir
    static Path tmp;
    static Path unsplit;
    static Path split;
    static Path tokens;

    @BeforeAll
    static void author() throws Exception {
        unsplit = tmp.resolve("tp1");
        split = tmp.resolve("tp2");
        assertThat(CliRunner.run("author", "--model", "tiny", "--cut", "decode", "--ctx", "8", "--out", unsplit.toString()).exit()).isZero();
        assertThat(CliRunner.run("author", "--model", "tiny", "--cut", "decode", "--ctx", "8", "--tp", "2", "--out", split.toString()).exit()).isZero();
        Tensor authored = Npy.read(unsplit.resolve("inputs/tokens.npy"));
        int other = (authored.getInt(0) + 5) % 32;
        tokens = tmp.resolve("tokens.npy");
        Npy.write(tokens, Tensor.fromInts(new Shape(java.util.List.of(1)), new int[] {other}));
    }

    private static CliRunner run(Path dir, String out, String... more) {
        String[] args = Stream.concat(Stream.of("run", dir.resolve("program.json").toString(), "--inputs", dir.toString(),
                "--out", tmp.resolve(out).toString()), Stream.of(more)).toArray(String[]::new);
        return CliRunner.run(args);
    }

    private static double maxDiff(String a, String b) throws Exception {
        float[] x = Npy.read(tmp.resolve(a).resolve("logits.npy")).toFloats();
        float[] y = Npy.read(tmp.resolve(b).resolve("logits.npy")).toFloats();
        assertThat(x).hasSameSizeAs(y);
        double m = 0;
        for (int i = 0; i < x.length; i++) {
            m = Math.max(m, Math.abs(x[i] - y[i]));
        }
        return m;
    }

    @Test
    void bindingTheLogicalTokensOfASplitGivesTheUnsplitLogits() throws Exception {
        CliRunner one = run(unsplit, "one", "--bind", "tokens=" + tokens);
        assertThat(one.exit()).as(one.err()).isZero();
        CliRunner two = run(split, "two", "--bind", "tokens=" + tokens);
        assertThat(two.exit()).as(two.err()).isZero();
        assertThat(two.err()).contains("--bind 'tokens' binds the copy on every chip: 'tokens', 'tokens.c1'").contains("certificate.json")
                .doesNotContain("warning");
        assertThat(maxDiff("one", "two")).isLessThan(1e-5);
        // and the token matters: the split's own tokens give other logits
        assertThat(run(split, "own").exit()).isZero();
        assertThat(maxDiff("one", "own")).isGreaterThan(1e-3);
    }

    @Test
    void withoutACertificateTheChipsNamesSayWhichTensorsAreCopies() throws Exception {
        Path bare = tmp.resolve("bare");
        copy(split, bare);
        Files.delete(bare.resolve("certificate.json"));
        CliRunner one = run(unsplit, "one-bare", "--bind", "tokens=" + tokens);
        CliRunner two = run(bare, "two-bare", "--bind", "tokens=" + tokens);
        assertThat(two.exit()).as(two.err()).isZero();
        assertThat(two.err()).contains("'tokens', 'tokens.c1' (copies read from the chips' tensor names");
        assertThat(one.exit()).isZero();
        assertThat(maxDiff("one-bare", "two-bare")).isLessThan(1e-5);
    }

    @Test
    void anExplicitCertificateIsUsedAndAnotherProgramsIsRefused() throws IOException {
        Path bare = tmp.resolve("bare-cert");
        copy(split, bare);
        Path cert = bare.resolve("certificate.json");
        Path moved = tmp.resolve("moved-certificate.json");
        Files.move(cert, moved);
        CliRunner r = run(bare, "explicit", "--bind", "tokens=" + tokens, "--cert", moved.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.err()).contains("(copies read from --cert " + moved + ")");
        Path tp4 = tmp.resolve("tp4");
        assertThat(CliRunner.run("author", "--model", "tiny", "--cut", "decode", "--ctx", "8", "--tp", "4", "--out", tp4.toString()).exit()).isZero();
        CliRunner other = run(bare, "other", "--bind", "tokens=" + tokens, "--cert", tp4.resolve("certificate.json").toString());
        assertThat(other.exit()).isEqualTo(2);
        assertThat(other.err()).contains("was written for another program");
    }

    @Test
    void aCopyBoundByItsOwnNameKeepsItsFileAndDisagreeingCopiesAreAWarning() {
        CliRunner r = run(split, "one-copy", "--bind", "tokens.c1=" + tokens);
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.err()).contains("warning: the chips' copies of input 'tokens' disagree: 'tokens.c1' (from --bind " + tokens
                + ") holds other values than 'tokens' (not from --bind)");
        CliRunner same = run(split, "same-copies", "--bind", "tokens=" + tokens, "--bind", "tokens.c1=" + tokens);
        assertThat(same.exit()).isZero();
        assertThat(same.err()).doesNotContain("warning").contains("binds the copy on every chip: 'tokens' (");
    }

    @Test
    void aTensorTheChipsHoldInPartsIsRefusedWithItsParts() {
        CliRunner r = run(split, "parts", "--bind", "kv_k.l0=" + tokens);
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("the split program holds 'kv_k.l0' in parts, one per chip ('kv_k.l0.c0', 'kv_k.l0.c1'")
                .contains("bind each part by its own name");
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.sorted(Comparator.naturalOrder()).toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }
}
