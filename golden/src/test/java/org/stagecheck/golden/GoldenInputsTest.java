package org.stagecheck.golden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.golden.store.Manifest;
import org.stagecheck.golden.store.ManifestCodec;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.inputs.Inputs;
import org.stagecheck.tensor.inputs.InputsException;
import org.stagecheck.tensor.npy.Npy;

/** A golden case read as a run's inputs, and the one input check at recording and loading. */
class GoldenInputsTest {
    @TempDir
    Path tmp;

    private Subjects.Subject ring;
    private Path caseDir;

    @BeforeEach
    void record() throws Exception {
        ring = Subjects.examples().stream().filter(s -> s.name().equals("scalar-offset-kv-ring")).findFirst().orElseThrow();
        caseDir = tmp.resolve("ring");
        Golden.record(ring.program(), ring.bound(), ring.params(), RecordOptions.defaults(), caseDir);
    }

    @Test
    void aCaseReadAsInputsGivesTheTensorsAndParametersItWasRecordedWith() throws Exception {
        assertThat(GoldenInputs.isCase(caseDir)).isTrue();
        Inputs.Read in = GoldenInputs.read(caseDir, ring.program());
        assertThat(in.params()).isEqualTo(ring.params());
        assertThat(in.bound()).containsOnlyKeys(ring.bound().keySet());
        ring.bound().forEach((name, t) -> assertThat(in.bound().get(name).toDoubles()).as(name).containsExactly(t.toDoubles()));
    }

    @Test
    void aCaseWithAnInputOfAnotherShapeIsRefusedNamingTheFile() throws Exception {
        Manifest m = ManifestCodec.read(caseDir.resolve(Manifest.FILE_NAME));
        Manifest.TensorFile first = m.inputs().getFirst();
        Npy.write(caseDir.resolve(first.file()), Tensor.zeros(DType.F32, Shape.of(3)));
        assertThatThrownBy(() -> GoldenInputs.read(caseDir, ring.program())).isInstanceOf(InputsException.class)
                .hasMessageContaining(first.file() + " holds f32[3] but tensor '" + first.tensor() + "' is " + first.dtype() + first.shape());
    }

    @Test
    void aCaseWhoseManifestLeadsOutIsRefused() throws Exception {
        Path mf = caseDir.resolve(Manifest.FILE_NAME);
        Files.writeString(mf, Files.readString(mf).replaceFirst("\"inputs/", "\"../inputs/"));
        assertThatThrownBy(() -> GoldenInputs.read(caseDir, ring.program())).isInstanceOf(InputsException.class)
                .hasMessageContaining("(a golden case)").hasMessageContaining("leaves the case directory");
    }

    @Test
    void recordingRefusesEveryBindingProblemWithTheOneChecksWords() {
        Map<String, Long> params = new LinkedHashMap<>(ring.params());
        params.put("len", 1L);
        Map<String, Tensor> bound = new LinkedHashMap<>(ring.bound());
        bound.remove("new_row");
        assertThatThrownBy(() -> Golden.record(ring.program(), bound, params, RecordOptions.defaults(), tmp.resolve("bad")))
                .isInstanceOf(GoldenException.class)
                .hasMessage("A value was given for 'len', which is not a parameter of the program. "
                        + "Tensor 'new_row' (input) has no bound value.");
        assertThat(tmp.resolve("bad")).doesNotExist();
    }

    @Test
    void loadingACaseWithAParameterOutOfRangeNamesTheManifestField() throws Exception {
        Path mf = caseDir.resolve(Manifest.FILE_NAME);
        Files.writeString(mf, Files.readString(mf).replaceFirst("\"pos\"\\s*:\\s*\\d+", "\"pos\" : 99"));
        assertThatThrownBy(() -> Golden.recorded(caseDir)).isInstanceOf(GoldenException.class)
                .hasMessage(mf + ": field /params/pos: needs a value in [0, 31], not 99");
    }
}
