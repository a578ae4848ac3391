package org.stagecheck.golden;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.tensor.compare.Operand;
import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.golden.store.Manifest;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;

/**
 * golden check opens a case's expected outputs, tolerances and actual files and compares them as
 * it reads them: nothing of theirs is loaded whole, and the report is the one values in memory give.
 */
class StreamedCheckTest {
    @TempDir
    Path tmp;

    @Test
    void outputsAndActualFilesAreOpenedNotReadAndReportWhatValuesInMemoryReport() throws Exception {
        Subjects.Subject mm = Subjects.examples().stream().filter(s -> s.name().equals("tiled-matmul-multicast")).findFirst().orElseThrow();
        Path caseDir = tmp.resolve("mm");
        Manifest m = Golden.record(mm.program(), mm.bound(), mm.params(), RecordOptions.defaults(), caseDir);

        LoadedCase loaded = LoadedCase.read(caseDir);
        assertThat(loaded.expected().values()).isNotEmpty().allMatch(o -> o instanceof Operand.NpyFile);
        assertThat(loaded.tolerances().values()).allMatch(o -> o instanceof Operand.NpyFile);

        // the backend's outputs written as files: the expected files themselves, by name
        Path actual = Files.createDirectories(tmp.resolve("actual"));
        for (Manifest.Output o : m.outputs()) {
            Files.copy(caseDir.resolve(o.file()), actual.resolve(Path.of(o.file()).getFileName()));
        }
        for (Policy p : new Policy[] {null, new Policy.Exact(), new Policy.Derived(1), Policy.parse("allclose")}) {
            CaseResult files = Golden.check(caseDir, new Actuals.FromDirectory(actual), p);
            CaseResult memory = Golden.check(caseDir, new Actuals.FromBackend(new Interpreter(RunOptions.defaults())), p);
            assertThat(files.status()).isEqualTo(CaseResult.Status.PASS);
            assertThat(files.outputs()).hasSameSizeAs(memory.outputs());
            for (int i = 0; i < files.outputs().size(); i++) {
                CaseResult.OutputResult f = files.outputs().get(i);
                CaseResult.OutputResult r = memory.outputs().get(i);
                assertThat(f.comparison()).isEqualTo(r.comparison());
                if (r.errorMap() == null) {
                    assertThat(f.errorMap()).isNull();
                } else {
                    assertThat(f.errorMap().error()).isEqualTo(r.errorMap().error());
                    assertThat(f.errorMap().mismatch()).isEqualTo(r.errorMap().mismatch());
                }
            }
        }
    }
}
