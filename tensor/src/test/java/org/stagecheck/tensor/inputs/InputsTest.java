package org.stagecheck.tensor.inputs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Machine;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.Npy;

/** The library reader of an inputs directory (docs/format.md, "Inputs manifest"). */
class InputsTest {
    /** x: f32[3] input, w: i32[2] weight, s: f32[2] state, y: f32[2] output; pos in [0, 7]. */
    private static final Program PROGRAM = new Program("p", new Machine(1, 1, 1), List.of(new Param("pos", 0, 7)),
            List.of(new TensorDecl("x", DType.F32, Shape.of(3), 0, TensorRole.INPUT),
                    new TensorDecl("w", DType.I32, Shape.of(2), 0, TensorRole.WEIGHT),
                    new TensorDecl("s", DType.F32, Shape.of(2), 0, TensorRole.STATE),
                    new TensorDecl("y", DType.F32, Shape.of(2), 0, TensorRole.OUTPUT)),
            List.of(), List.of(), List.of());

    @TempDir
    Path dir;

    private void manifest(String params) throws IOException {
        Files.writeString(dir.resolve("inputs.json"), """
                {"format": "stagecheck-inputs", "version": 1,
                 "tensors": {"x": "in/x.npy", "w": "in/w.npy"}, "params": %s}""".formatted(params));
    }

    private void files() throws IOException {
        Files.createDirectories(dir.resolve("in"));
        Npy.write(dir.resolve("in/x.npy"), Tensor.fromFloats(DType.F32, Shape.of(3), new float[] {1, 2, 3}));
        Npy.write(dir.resolve("in/w.npy"), Tensor.fromInts(Shape.of(2), new int[] {4, 5}));
    }

    @Test
    void aManifestBindsItsFilesAndParametersAndAStateWithoutAFileStartsAtZero() throws Exception {
        files();
        manifest("{\"pos\": 3}");
        Inputs.Read r = Inputs.read(dir, PROGRAM);
        assertThat(r.params()).containsExactly(java.util.Map.entry("pos", 3L));
        assertThat(r.bound()).containsOnlyKeys("x", "w", "s");
        assertThat(r.bound().get("x").toFloats()).containsExactly(1f, 2f, 3f);
        assertThat(r.bound().get("w").toInts()).containsExactly(4, 5);
        assertThat(r.bound().get("s").toFloats()).containsExactly(0f, 0f);
    }

    @Test
    void withoutAManifestEachTensorIsReadFromItsNpyFile() throws Exception {
        Npy.write(dir.resolve("x.npy"), Tensor.fromFloats(DType.F32, Shape.of(3), new float[] {7, 8, 9}));
        Npy.write(dir.resolve("w.npy"), Tensor.fromInts(Shape.of(2), new int[] {1, 1}));
        // no manifest, so no parameter value: refused naming the parameter
        assertThatThrownBy(() -> Inputs.read(dir, PROGRAM)).isInstanceOf(InputsException.class)
                .hasMessage(dir + ": Parameter 'pos' has no value for this run; it takes a value in [0, 7].");
    }

    @Test
    void aMissingFileIsNamed() throws Exception {
        files();
        Files.delete(dir.resolve("in/w.npy"));
        manifest("{\"pos\": 3}");
        assertThatThrownBy(() -> Inputs.read(dir, PROGRAM)).isInstanceOf(InputsException.class)
                .hasMessage("missing input file(s) for w (" + dir.toAbsolutePath().normalize().resolve("in/w.npy") + ")");
    }

    @Test
    void aFileOfAnotherShapeIsRefusedFromItsHeader() throws Exception {
        files();
        Npy.write(dir.resolve("in/x.npy"), Tensor.fromFloats(DType.F32, Shape.of(4), new float[] {1, 2, 3, 4}));
        manifest("{\"pos\": 3}");
        assertThatThrownBy(() -> Inputs.read(dir, PROGRAM)).isInstanceOf(InputsException.class)
                .hasMessageContaining("in/x.npy holds f32[4] but tensor 'x' is f32[3]");
    }

    @Test
    void aParameterOutOfRangeOrUndeclaredIsRefused() throws Exception {
        files();
        manifest("{\"pos\": 9, \"len\": 2}");
        assertThatThrownBy(() -> Inputs.read(dir, PROGRAM)).isInstanceOf(InputsException.class)
                .hasMessage(dir + ": Parameter 'pos' is 9, outside its declared range [0, 7]. "
                        + "A value was given for 'len', which is not a parameter of the program.");
    }

    @Test
    void aManifestPathLeavingTheDirectoryAndAMissingDirectoryAreRefused() throws Exception {
        Files.writeString(dir.resolve("inputs.json"), """
                {"format": "stagecheck-inputs", "version": 1, "tensors": {"x": "../x.npy"}, "params": {}}""");
        assertThatThrownBy(() -> Inputs.read(dir, PROGRAM)).isInstanceOf(InputsException.class)
                .hasMessageContaining("path \"../x.npy\" for tensor \"x\" leaves the manifest's directory");
        assertThatThrownBy(() -> Inputs.read(dir.resolve("nothing"), PROGRAM)).isInstanceOf(InputsException.class)
                .hasMessageContaining("no such directory");
    }
}
