package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.golden.store.Manifest;
import org.stagecheck.golden.store.ManifestCodec;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.Npy;

/**
 * A golden case given as {@code --inputs} (docs/golden.md, "A case as inputs"): run, diff and
 * golden record read the tensors and parameters the case was recorded with, so they give what the
 * original inputs give; a case that cannot serve (a file gone, a file of another shape, a
 * parameter out of range) is bad input, exit 2, naming what is wrong.
 */
class CaseAsInputsTest {
    private static final String PROGRAM = "../examples/scalar-offset-kv-ring.json";

    @TempDir
    Path tmp;
    Path caseDir;

    @BeforeEach
    void recordACase() {
        caseDir = tmp.resolve("case");
        CliRunner r = CliRunner.run("golden", "record", PROGRAM, "--random", "7", "--param", "pos=9", "--out", caseDir.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
    }

    @Test
    void runOnTheCaseWritesWhatRunOnTheOriginalInputsWrites() throws IOException {
        CliRunner original = CliRunner.run("run", PROGRAM, "--random", "7", "--param", "pos=9", "--out", tmp.resolve("a").toString());
        CliRunner fromCase = CliRunner.run("run", PROGRAM, "--inputs", caseDir.toString(), "--out", tmp.resolve("b").toString());
        assertThat(original.exit()).as(original.err()).isZero();
        assertThat(fromCase.exit()).as(fromCase.err()).isZero();
        Map<String, byte[]> a = npyFiles(tmp.resolve("a"));
        assertThat(a).isNotEmpty();
        assertThat(npyFiles(tmp.resolve("b"))).containsOnlyKeys(a.keySet());
        a.forEach((name, bytes) -> assertThat(npyFiles(tmp.resolve("b")).get(name)).as(name).isEqualTo(bytes));
        // another seed gives other outputs: the equality above is the case's inputs at work
        CliRunner other = CliRunner.run("run", PROGRAM, "--random", "8", "--param", "pos=9", "--out", tmp.resolve("c").toString());
        assertThat(other.exit()).isZero();
        assertThat(npyFiles(tmp.resolve("c")).get("rotated.npy")).isNotEqualTo(a.get("rotated.npy"));
    }

    @Test
    void paramOverridesTheCasesValue() {
        CliRunner r = CliRunner.run("run", PROGRAM, "--inputs", caseDir.toString(), "--param", "pos=40", "--out", tmp.resolve("o").toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("Parameter 'pos' is 40, outside its declared range [0, 31].");
    }

    @Test
    void goldenRecordFromTheCaseRecordsTheSameCase() throws IOException {
        Path again = tmp.resolve("again");
        CliRunner r = CliRunner.run("golden", "record", PROGRAM, "--inputs", caseDir.toString(), "--out", again.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        Map<String, byte[]> first = allFiles(caseDir);
        assertThat(allFiles(again)).containsOnlyKeys(first.keySet());
        first.forEach((name, bytes) -> assertThat(allFiles(again).get(name)).as(name).isEqualTo(bytes));
    }

    @Test
    void diffReplayOnTheCaseAgreesWithARunOfTheOriginalInputsOnly() {
        Path same = tmp.resolve("same");
        Path other = tmp.resolve("other");
        assertThat(CliRunner.run("run", PROGRAM, "--random", "7", "--param", "pos=9", "--trace", "--out", same.toString()).exit()).isZero();
        assertThat(CliRunner.run("run", PROGRAM, "--random", "8", "--param", "pos=9", "--trace", "--out", other.toString()).exit()).isZero();
        CliRunner agrees = CliRunner.run("diff", "--replay", "--program", PROGRAM, "--inputs", caseDir.toString(), "--actual", same.toString());
        assertThat(agrees.exit()).as(agrees.out() + agrees.err()).isZero();
        assertThat(agrees.out()).contains("everything recorded agrees");
        CliRunner differs = CliRunner.run("diff", "--replay", "--program", PROGRAM, "--inputs", caseDir.toString(), "--actual", other.toString());
        assertThat(differs.exit()).as(differs.out() + differs.err()).isEqualTo(1);
    }

    @Test
    void aCaseWithAnInputFileGoneIsBadInputNamingIt() throws Exception {
        Path input = inputFile("new_row");
        Files.delete(input);
        for (CliRunner r : everyCommand()) {
            assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(2);
            assertThat(r.err()).contains("new_row").contains(input.getFileName().toString()).doesNotContain("Exception");
        }
    }

    @Test
    void aCaseWithAnInputOfAnotherShapeIsBadInputNamingTheFileAndBothShapes() throws Exception {
        Path input = inputFile("new_row");
        Npy.write(input, Tensor.zeros(DType.F32, Shape.of(2, 16)));
        for (CliRunner r : everyCommand()) {
            assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(2);
            assertThat(r.err()).contains(input.getFileName() + " holds f32[2, 16] but tensor 'new_row' is f32[1, 16]");
        }
    }

    @Test
    void aCaseWithAParameterOutOfRangeIsBadInputNamingIt() throws Exception {
        Path mf = caseDir.resolve(Manifest.FILE_NAME);
        Files.writeString(mf, Files.readString(mf).replaceFirst("\"pos\"\\s*:\\s*9\\b", "\"pos\" : 99"));
        assertThat(Files.readString(mf)).contains("\"pos\" : 99");
        for (CliRunner r : everyCommand()) {
            assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(2);
            assertThat(r.err()).contains("Parameter 'pos' is 99, outside its declared range [0, 31].");
        }
    }

    private CliRunner[] everyCommand() {
        return new CliRunner[] {
                CliRunner.run("run", PROGRAM, "--inputs", caseDir.toString(), "--out", tmp.resolve("run").toString()),
                CliRunner.run("diff", "--replay", "--program", PROGRAM, "--inputs", caseDir.toString(), "--backend", "interp"),
                CliRunner.run("golden", "record", PROGRAM, "--inputs", caseDir.toString(), "--out", tmp.resolve("rec").toString())};
    }

    private Path inputFile(String tensor) throws Exception {
        Manifest m = ManifestCodec.read(caseDir.resolve(Manifest.FILE_NAME));
        return caseDir.resolve(m.inputs().stream().filter(t -> t.tensor().equals(tensor)).findFirst().orElseThrow().file());
    }

    private static Map<String, byte[]> npyFiles(Path dir) {
        Map<String, byte[]> files = new TreeMap<>();
        allFiles(dir).forEach((name, bytes) -> {
            if (name.endsWith(".npy")) {
                files.put(name, bytes);
            }
        });
        return files;
    }

    private static Map<String, byte[]> allFiles(Path dir) {
        Map<String, byte[]> files = new TreeMap<>();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                files.put(dir.relativize(p).toString(), Files.readAllBytes(p));
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return files;
    }
}
