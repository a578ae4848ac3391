package org.stagecheck.golden;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import org.stagecheck.golden.store.CasePaths;
import org.stagecheck.golden.store.Manifest;
import org.stagecheck.golden.store.ManifestCodec;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.json.CheckpointRefs;
import org.stagecheck.tensor.inputs.Inputs;
import org.stagecheck.tensor.inputs.InputsDir;
import org.stagecheck.tensor.inputs.InputsException;
import org.stagecheck.tensor.inputs.InputsManifest;

/**
 * A golden case read as a run's inputs (docs/golden.md, "A case as inputs"): the tensors and
 * parameter values it was recorded with, so that a case is run, diffed, re-recorded or reduced
 * from the case itself. The case's {@code manifest.json} takes the place of an inputs directory's
 * {@code inputs.json}: its input files (inside the case) bind the tensors, its checkpoint
 * references (docs/golden.md, "Checkpoint references") the tensors it did not copy, its parameters
 * the parameters, and every file's header is checked against the program as for any inputs directory.
 */
public final class GoldenInputs {
    private GoldenInputs() {
    }

    /** Whether {@code dir} is a golden case (a {@code manifest.json}, and no {@code inputs.json} of its own). */
    public static boolean isCase(Path dir) {
        return Files.isRegularFile(dir.resolve(Manifest.FILE_NAME)) && !Files.exists(dir.resolve(InputsManifest.FILE_NAME));
    }

    /**
     * The inputs in {@code dir} for {@code program}: a golden case's recorded inputs, or an inputs
     * directory's ({@link Inputs#read(Path, Program)}); refused, naming the problem, unless a backend can run them.
     */
    public static Inputs.Read read(Path dir, Program program) throws InputsException {
        InputsDir inputs = InputsDir.of("inputs directory", dir);
        return Inputs.read(inputs, manifest(inputs, program), program);
    }

    /**
     * What binds {@code program}'s tensors and parameters in {@code inputs}: its {@code inputs.json}
     * (or none), or, for a golden case, the case's input files and the values it records for the
     * parameters {@code program} declares (a case recorded for a larger program serves a reduced one),
     * with its checkpoint references if it has any ({@link Inputs#fromCheckpoint} reads them).
     */
    public static InputsManifest manifest(InputsDir inputs, Program program) throws InputsException {
        Path dir = inputs.dir();
        if (!isCase(dir)) {
            return InputsManifest.readOrEmpty(inputs);
        }
        Path mf = dir.resolve(Manifest.FILE_NAME);
        try {
            inputs.inside(mf);
            Manifest m = ManifestCodec.read(mf);
            Map<String, Path> tensors = new LinkedHashMap<>();
            for (int i = 0; i < m.inputs().size(); i++) {
                Manifest.TensorFile t = m.inputs().get(i);
                tensors.put(t.tensor(), CasePaths.inside(dir, t.file(), mf, "/inputs/" + i + "/file"));
            }
            Map<String, Long> params = new LinkedHashMap<>();
            for (var p : program.params()) {
                Long v = m.params().get(p.name());
                if (v != null) {
                    params.put(p.name(), v);
                }
            }
            return new InputsManifest(tensors, params, m.checkpoint());
        } catch (GoldenException e) {
            throw new InputsException(inputs.option() + " " + dir + " (a golden case): " + e.getMessage());
        }
    }

    /**
     * The checkpoint references of {@code manifest} (read from {@code inputs}: an inputs directory's
     * {@code inputs.json} or a case's manifest, by {@link #manifest}) that bind {@code program}'s
     * tensors, but those in {@code skip} (bound from elsewhere): what
     * {@link Golden#record(Program, Map, CheckpointRefs, Map, RecordOptions, Path)} records instead
     * of copies. The directory is made absolute (it may be relative to {@code inputs}); only the
     * files those tensors use are kept. Null when no tensor of {@code program} is referenced.
     */
    public static CheckpointRefs referenced(InputsDir inputs, InputsManifest manifest, Program program, Set<String> skip) {
        return ReferencedInputs.restrict(manifest.checkpoint(), inputs.dir(), program, skip);
    }
}
