package org.stagecheck.golden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.golden.store.Manifest;
import org.stagecheck.golden.store.ManifestCodec;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.Npy;

class GoldenCaseTest {
    @TempDir
    Path tmp;

    private Subjects.Subject mm;
    private Path caseDir;

    @BeforeEach
    void record() throws Exception {
        mm = Subjects.examples().stream().filter(s -> s.name().equals("tiled-matmul-multicast")).findFirst().orElseThrow();
        caseDir = tmp.resolve("mm");
        Golden.record(mm.program(), mm.bound(), mm.params(), RecordOptions.defaults(), caseDir);
    }

    private static Actuals interp() {
        return new Actuals.FromBackend(new Interpreter(RunOptions.defaults()));
    }

    private Manifest manifest() throws GoldenException {
        return ManifestCodec.read(caseDir.resolve(Manifest.FILE_NAME));
    }

    @Test
    void recordedCaseChecksAgainstTheInterpreterBitExactly() {
        CaseResult r = Golden.check(caseDir, interp());
        assertThat(r.status()).isEqualTo(CaseResult.Status.PASS);
        assertThat(r.outputs()).isNotEmpty();
        CaseResult exact = Golden.check(caseDir, interp(), new Policy.Exact());
        assertThat(exact.status()).isEqualTo(CaseResult.Status.PASS);
    }

    @Test
    void reRecordingGivesTheSameBytesAndNeedsUpdate() throws Exception {
        Path again = tmp.resolve("again");
        Golden.record(mm.program(), mm.bound(), mm.params(), RecordOptions.defaults(), again);
        assertThat(files(again)).isEqualTo(files(caseDir));
        assertThatThrownBy(() -> Golden.record(mm.program(), mm.bound(), mm.params(), RecordOptions.defaults(), caseDir))
                .isInstanceOf(GoldenException.class).hasMessageContaining("--update");
        Golden.record(mm.program(), mm.bound(), mm.params(), RecordOptions.defaults().withUpdate(true), caseDir);
        assertThat(files(caseDir)).isEqualTo(files(again));
        try (Stream<Path> s = Files.list(tmp)) {
            assertThat(s.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("mm", "again");
        }
    }

    @Test
    void updateRefusesToReplaceADirectoryThatIsNotACase() throws IOException {
        Path other = Files.createDirectories(tmp.resolve("other"));
        Files.writeString(other.resolve("keep.txt"), "mine");
        assertThatThrownBy(() -> Golden.record(mm.program(), mm.bound(), mm.params(), RecordOptions.defaults().withUpdate(true), other))
                .hasMessageContaining("not a golden case");
        assertThat(other.resolve("keep.txt")).exists();
    }

    /** An empty directory (what a CI step often creates first) is recorded into; a file or a foreign directory is not, update or not. */
    @Test
    void anEmptyDirectoryIsRecordedIntoAndAnythingElseNotACaseIsRefused() throws Exception {
        Path empty = Files.createDirectories(tmp.resolve("empty"));
        Golden.record(mm.program(), mm.bound(), mm.params(), RecordOptions.defaults(), empty);
        assertThat(files(empty)).isEqualTo(files(caseDir));
        Path other = Files.createDirectories(tmp.resolve("other"));
        Files.writeString(other.resolve("keep.txt"), "mine");
        assertThatThrownBy(() -> Golden.record(mm.program(), mm.bound(), mm.params(), RecordOptions.defaults(), other))
                .hasMessageContaining("not a golden case");
        Path file = Files.writeString(tmp.resolve("file"), "mine");
        assertThatThrownBy(() -> Golden.record(mm.program(), mm.bound(), mm.params(), RecordOptions.defaults().withUpdate(true), file))
                .hasMessageContaining("not a directory");
        assertThat(file).hasContent("mine");
        assertThat(other.resolve("keep.txt")).hasContent("mine");
    }

    static Map<String, String> files(Path dir) throws IOException {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                out.put(dir.relativize(p).toString(), org.stagecheck.spec.json.ProgramCodec.sha256(Files.readAllBytes(p)));
            }
        }
        return out;
    }

    @Test
    void aChangedProgramIsStaleNotCompared() throws Exception {
        Path program = caseDir.resolve(manifest().programFile());
        String text = Files.readString(program);
        String changed = text.replaceFirst("\"name\"\\s*:\\s*\"([^\"]*)\"", "\"name\": \"$1-changed\"");
        assertThat(changed).isNotEqualTo(text);
        Files.writeString(program, changed);
        CaseResult r = Golden.check(caseDir, interp());
        assertThat(r.status()).isEqualTo(CaseResult.Status.STALE);
        assertThat(r.outputs()).isEmpty();
        assertThat(r.message()).contains("stale").contains(manifest().programHash());
        assertThat(CaseResult.exitCode(java.util.List.of(r))).isEqualTo(1);
    }

    @Test
    void actualFilesWithinTheDerivedToleranceAndOneBeyond() throws Exception {
        Manifest m = manifest();
        Manifest.Output o = m.outputs().get(0);
        Tensor expected = Npy.read(caseDir.resolve(o.file()));
        Tensor tol = Npy.read(caseDir.resolve(o.tolerance()));
        Path out = Files.createDirectories(tmp.resolve("actual"));
        float[] v = expected.toFloats();
        int i = 5;
        double t = tol.getDouble(i);
        assertThat(t).isGreaterThan(0);
        v[i] = (float) (expected.getDouble(i) + 0.5 * t);
        Npy.write(out.resolve(o.tensor() + ".npy"), Tensor.fromFloats(expected.dtype(), expected.shape(), v));
        assertThat(Golden.check(caseDir, new Actuals.FromDirectory(out)).status()).isEqualTo(CaseResult.Status.PASS);
        assertThat(Golden.check(caseDir, new Actuals.FromDirectory(out), new Policy.Exact()).status()).isEqualTo(CaseResult.Status.FAIL);
        v[i] = (float) (expected.getDouble(i) + 1.01 * t);
        Npy.write(out.resolve(o.tensor() + ".npy"), Tensor.fromFloats(expected.dtype(), expected.shape(), v));
        CaseResult r = Golden.check(caseDir, new Actuals.FromDirectory(out));
        assertThat(r.status()).isEqualTo(CaseResult.Status.FAIL);
        var c = r.outputs().get(0).comparison();
        assertThat(c.mismatches()).isEqualTo(1);
        assertThat(c.maxAbs().flatIndex()).isEqualTo(i);
        assertThat(c.minimal().derivedScale()).isBetween(1.0, 1.02);
    }

    @Test
    void missingWrongShapeOrDtypeActualFilesAreBadInputNamingTheFile() throws Exception {
        Manifest.Output o = manifest().outputs().get(0);
        Path out = Files.createDirectories(tmp.resolve("actual"));
        CaseResult missing = Golden.check(caseDir, new Actuals.FromDirectory(out));
        assertThat(missing.status()).isEqualTo(CaseResult.Status.BAD_INPUT);
        assertThat(missing.message()).contains(out.toAbsolutePath().toString()).contains("missing");
        Npy.write(out.resolve(o.tensor() + ".npy"), Tensor.zeros(o.dtype(), org.stagecheck.spec.ir.Shape.of(3)));
        CaseResult shape = Golden.check(caseDir, new Actuals.FromDirectory(out));
        assertThat(shape.status()).isEqualTo(CaseResult.Status.BAD_INPUT);
        assertThat(shape.message()).contains(o.tensor() + ".npy").contains("[3]").contains("/outputs/0");
        Npy.write(out.resolve(o.tensor() + ".npy"), Tensor.zeros(org.stagecheck.spec.ir.DType.I32, o.shape()));
        assertThat(Golden.check(caseDir, new Actuals.FromDirectory(out)).message()).contains("i32");
        assertThat(CaseResult.exitCode(java.util.List.of(shape))).isEqualTo(2);
    }

    @Test
    void damagedCasesAreBadInputNamingFileAndField() throws Exception {
        Path mf = caseDir.resolve(Manifest.FILE_NAME);
        String good = Files.readString(mf);
        Manifest m = manifest();

        Files.delete(caseDir.resolve(m.inputs().get(0).file()));
        assertThat(Golden.check(caseDir, interp()).message()).contains(m.inputs().get(0).file()).contains("/inputs/0/file").contains("missing");

        Files.writeString(mf, good.replace(m.inputs().get(0).file(), "../../escape.npy"));
        assertThat(Golden.check(caseDir, interp()).message()).contains("/inputs/0/file").contains("leaves the case directory");

        Files.writeString(mf, good.substring(0, good.length() / 2));
        CaseResult malformed = Golden.check(caseDir, interp());
        assertThat(malformed.status()).isEqualTo(CaseResult.Status.BAD_INPUT);
        assertThat(malformed.message()).contains(mf.toString()).contains("malformed JSON");

        Files.writeString(mf, good.replace("\"policy\" : \"derived\"", "\"policy\" : \"closeish\""));
        assertThat(Golden.check(caseDir, interp()).message()).contains("/outputs/0/policy").contains("unknown tolerance policy");

        Files.writeString(mf, good.replace("\"dtype\" : \"f32\"", "\"dtype\" : \"bf16\""));
        assertThat(Golden.check(caseDir, interp()).message()).contains("/dtype").contains("declares");

        Files.writeString(mf, good.replace("\"version\" : 1", "\"version\" : 7"));
        assertThat(Golden.check(caseDir, interp()).message()).contains("/version");
    }

    @Test
    void aWrongShapeInsideAnExpectedFileIsBadInputNamingIt() throws Exception {
        Manifest.Output o = manifest().outputs().get(0);
        Npy.write(caseDir.resolve(o.file()), Tensor.zeros(o.dtype(), org.stagecheck.spec.ir.Shape.of(2, 2)));
        CaseResult r = Golden.check(caseDir, interp());
        assertThat(r.status()).isEqualTo(CaseResult.Status.BAD_INPUT);
        assertThat(r.message()).contains(o.file()).contains("[2, 2]");
    }

    @Test
    void tensorNamesNeverBecomePathsOutsideTheCase() {
        assertThat(org.stagecheck.golden.store.CasePaths.fileName("expected", 3, "../../etc/passwd")).isEqualTo("expected/003-_._.._etc_passwd.npy");
        assertThat(org.stagecheck.golden.store.CasePaths.fileName("inputs", 0, "kv.cache/l0")).isEqualTo("inputs/000-kv.cache_l0.npy");
        Manifest.Output o = new Manifest.Output("../up", "expected/000-_up.npy", org.stagecheck.spec.ir.DType.F32,
                org.stagecheck.spec.ir.Shape.of(1), new Policy.Exact(), null);
        assertThat(Checker.actualFile(tmp, o).getParent()).isEqualTo(tmp.toAbsolutePath().normalize());
    }
}
