package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ValidateCommandTest {
    private static final Path EXAMPLES = Path.of("..", "examples");

    @TempDir
    Path tmp;

    private static String example(String name) throws IOException {
        return Files.readString(EXAMPLES.resolve(name));
    }

    @Test
    void everyExampleValidatesWithExitZero() throws IOException {
        String[] files;
        try (Stream<Path> s = Files.list(EXAMPLES)) {
            files = s.filter(p -> p.toString().endsWith(".json")).map(Path::toString).sorted().toArray(String[]::new);
        }
        assertThat(files).hasSizeGreaterThanOrEqualTo(5);
        CliRunner r = CliRunner.run(prepend("validate", files));
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("valid (tiled-matmul-2x2-multicast, 16 stages)");
    }

    @Test
    void aTruncatedFileIsBadInputNamingLineAndColumn() throws IOException {
        String text = example("elementwise-chain.json");
        Path f = tmp.resolve("trunc.json");
        Files.writeString(f, text.substring(0, 300));
        CliRunner r = CliRunner.run("validate", f.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).matches("(?s)error: .*trunc\\.json:\\d+:\\d+: malformed JSON: Unexpected end-of-input.*");
        assertThat(r.err()).doesNotContain("Exception").doesNotContain("\tat ");
    }

    @Test
    void aDanglingReferenceFailsTheCheckWithStageAndField() throws IOException {
        Path f = tmp.resolve("dangling.json");
        Files.writeString(f, example("elementwise-chain.json").replace("\"outs\": [\"silu\"]", "\"outs\": [\"silu_typo\"]"));
        CliRunner r = CliRunner.run("validate", f.toString());
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.out()).contains("dangling.json:24:66: UNKNOWN_BUFFER stage #2 'silu' at /stages/2/outs/0 buffer 'silu_typo'");
    }

    @Test
    void aSubBlockSplitThatDoesNotTileFails() throws IOException {
        Path f = tmp.resolve("tile.json");
        Files.writeString(f, example("elementwise-chain.json").replace("\"subBlocks\": [2, 4]", "\"subBlocks\": [3, 4]"));
        CliRunner r = CliRunner.run("validate", f.toString());
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.out()).contains("SUBBLOCK_TILING stage #4 'store_y' at /stages/4/kind/subBlocks");
    }

    @Test
    void aMatMulShapeMismatchFailsWithJsonOutput() throws IOException {
        Path f = tmp.resolve("mm.json");
        Files.writeString(f, example("tp2-matmul-allreduce.json").replaceFirst("\"shape\": \\[\\s*8,\\s*16\\s*\\],\\s*\"site\": \\[\\s*0,", "\"shape\": [9, 16], \"site\": [0,"));
        CliRunner r = CliRunner.run("validate", "--json", f.toString());
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.out()).contains("\"code\" : \"MATMUL_SHAPE\"").contains("\"stageId\" : \"mm.c0\"").contains("\"field\" : \"/stages/3/ins/1\"");
    }

    @Test
    void usageErrorsAndMissingFilesAreExitTwo() {
        assertThat(CliRunner.run("validate").exit()).isEqualTo(2);
        assertThat(CliRunner.run("frobnicate").exit()).isEqualTo(2);
        CliRunner r = CliRunner.run("validate", tmp.resolve("nope.json").toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("no such file");
    }

    private static String[] prepend(String first, String[] rest) {
        String[] all = new String[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }
}
