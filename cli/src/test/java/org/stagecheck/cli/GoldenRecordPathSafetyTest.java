package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** golden record keeps names as data too: no tensor name or stage id writes outside the case directory. */
class GoldenRecordPathSafetyTest {
    @TempDir
    Path tmp;

    static Stream<String> hostile() {
        return PathSafetyTest.hostile();
    }

    private static Set<String> treeOf(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            return s.map(p -> root.relativize(p).toString()).collect(Collectors.toCollection(TreeSet::new));
        }
    }

    @ParameterizedTest
    @MethodSource("hostile")
    void aHostileOutputNameOrStageIdNeverWritesOutsideTheCase(String name) throws IOException {
        Path sandbox = tmp.resolve("a/b/c");
        Path program = HostileProgram.write(sandbox.resolve("p.json"), name, "x", name);
        Path caseDir = sandbox.resolve("case");
        CliRunner r = CliRunner.run("golden", "record", program.toString(), "--random", "1", "--trace", "--out", caseDir.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isIn(1, 2);
        Set<String> outside = treeOf(tmp);
        outside.removeIf(p -> p.startsWith("a/b/c/case"));
        assertThat(outside).containsExactlyInAnyOrder("", "a", "a/b", "a/b/c", "a/b/c/p.json");
        assertThat(Path.of("/tmp/stagecheck-escaped-absolute.npy")).doesNotExist();
    }
}
