package org.stagecheck.golden;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.stagecheck.backend.BindingProblem;
import org.stagecheck.backend.Bindings;
import org.stagecheck.backend.RunResult;
import org.stagecheck.golden.derive.DerivedBounds;
import org.stagecheck.golden.derive.DerivedTolerance;
import org.stagecheck.golden.store.CasePaths;
import org.stagecheck.golden.store.Manifest;
import org.stagecheck.golden.store.ManifestCodec;
import org.stagecheck.backend.Backends;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.json.CheckpointRefs;
import org.stagecheck.spec.json.ProgramCodec;
import org.stagecheck.spec.validate.Validator;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.io.WriterTemp;
import org.stagecheck.tensor.npy.Npy;

/**
 * Records a golden case (docs/golden.md, "Recording"): the reference interpreter's f32 outputs,
 * the derived tolerances and the inputs (a tensor read from a checkpoint as its reference, not a
 * copy), written into this recording's own {@code .<case>.<random>.stagecheck-tmp} beside the
 * target and moved into place ({@link WriterTemp}: an old case is set aside between the two
 * renames), so an interrupted record leaves the old case, none, or the new one, two recordings of
 * one case never mix, and the next record into the same place removes what a killed one left. The bytes depend only on the program, the bindings, the
 * checkpoint references, the parameters and the options.
 */
final class Recorder {
    static final String PROGRAM_FILE = "program.json";

    private Recorder() {
    }

    /**
     * @param referenced the checkpoint references of the tensors of {@code bound} that were read from
     *                   a checkpoint (recorded instead of copies), or null
     */
    static Manifest record(Program program, Map<String, Tensor> bound, CheckpointRefs referenced, Map<String, Long> params,
                           RecordOptions options, Path out) throws GoldenException, IOException {
        Path target = out.toAbsolutePath().normalize();
        refuseExisting(target, options.update());
        List<Diagnostic> invalid = new Validator().validate(program);
        if (!invalid.isEmpty()) {
            throw new GoldenException(null, null, "the program is not well-formed (" + invalid.size() + " finding(s), first: "
                    + invalid.get(0).render() + "); nothing was recorded");
        }
        checkBindings(program, bound, params);
        CheckpointRefs refs = referenced == null ? null : ReferencedInputs.checkForRecording(program, bound, referenced);
        RunResult ref = Backends.named("interp").run(program, bound, params, options.trace());
        if (!ref.ok()) {
            throw new GoldenException(null, null, "the reference run faulted at stage '" + ref.stoppedAtStage() + "': "
                    + ref.faults().get(0).render() + "; nothing was recorded");
        }
        DerivedTolerance.Result bounds;
        try {
            bounds = DerivedTolerance.compute(program, bound, params, options.mathMode(), options.ensemble());
        } catch (DerivedBounds.BoundException e) {
            throw new GoldenException(null, null, e.getMessage());
        }
        Path parent = target.getParent();
        Files.createDirectories(parent);
        // this recording's own directory beside the target (with the umask, like every file below),
        // moved over the target when complete; what killed recordings left goes now
        try (WriterTemp tmp = WriterTemp.directory(target)) {
            Manifest m = writeFiles(tmp.path(), program, bound, refs, params, options, ref, bounds);
            tmp.moveTo(target);
            return m;
        }
    }

    /**
     * An existing {@code target} is recorded over only when it is an empty directory (what a
     * user or a CI step often creates first) or a golden case with {@code update}; anything else
     * is refused, saying which it is.
     */
    private static void refuseExisting(Path target, boolean update) throws GoldenException {
        if (!Files.exists(target)) {
            return;
        }
        if (!Files.isDirectory(target)) {
            throw new GoldenException(target, null, "exists and is not a directory; refusing to replace it");
        }
        boolean isCase = Files.isRegularFile(target.resolve(Manifest.FILE_NAME));
        boolean empty;
        try (Stream<Path> s = Files.list(target)) {
            empty = s.findAny().isEmpty();
        } catch (IOException e) {
            throw new GoldenException(target, null, "cannot be listed: " + e.getMessage());
        }
        if (empty) {
            return;
        }
        if (!isCase) {
            throw new GoldenException(target, null, "exists and is not a golden case (no " + Manifest.FILE_NAME + "); refusing to replace it");
        }
        if (!update) {
            throw new GoldenException(target, null, "a case already exists here; give --update to record over it");
        }
    }

    private static void checkBindings(Program program, Map<String, Tensor> bound, Map<String, Long> params) throws GoldenException {
        List<BindingProblem> problems = Bindings.check(program, bound, params);
        if (!problems.isEmpty()) {
            throw new GoldenException(null, null, Bindings.describe(problems));
        }
    }

    private static Manifest writeFiles(Path dir, Program program, Map<String, Tensor> bound, CheckpointRefs refs, Map<String, Long> params,
                                       RecordOptions options, RunResult ref, DerivedTolerance.Result bounds) throws IOException {
        ProgramCodec codec = new ProgramCodec();
        Files.write(dir.resolve(PROGRAM_FILE), codec.write(program));
        List<Manifest.TensorFile> inputs = new ArrayList<>();
        List<Manifest.Output> outputs = new ArrayList<>();
        for (TensorDecl d : program.tensors()) {
            if (d.role().isBoundBeforeRun() && (refs == null || !refs.tensors().containsKey(d.name()))) {
                String f = CasePaths.fileName("inputs", inputs.size(), d.name());
                write(dir, f, bound.get(d.name()));
                inputs.add(new Manifest.TensorFile(d.name(), f, d.dtype(), d.shape()));
            }
        }
        for (TensorDecl d : program.tensors()) {
            if (!d.role().isResult()) {
                continue;
            }
            int k = outputs.size();
            String f = CasePaths.fileName("expected", k, d.name());
            write(dir, f, ref.tensor(d.name()));
            String tol = null;
            String basis = null;
            if (d.dtype().isFloating()) {
                tol = CasePaths.fileName("tolerance", k, d.name());
                write(dir, tol, bounds.tolerances().get(d.name()));
                basis = bounds.bases().get(d.name()).describe();
            }
            outputs.add(new Manifest.Output(d.name(), f, d.dtype(), d.shape(), options.policyOf(d.name()), tol, basis));
        }
        List<Manifest.TraceFile> trace = new ArrayList<>();
        if (options.trace()) {
            List<Stage> stages = program.stages();
            for (int i = 0; i < stages.size(); i++) {
                List<Tensor> values = ref.trace().get(stages.get(i).id());
                for (int p = 0; values != null && p < values.size(); p++) {
                    String f = CasePaths.fileName("trace", trace.size(), stages.get(i).id() + ".out" + p);
                    write(dir, f, values.get(p));
                    trace.add(new Manifest.TraceFile(stages.get(i).id(), p, f, values.get(p).dtype(), values.get(p).shape()));
                }
            }
        }
        Map<String, Long> orderedParams = new LinkedHashMap<>();
        for (Param p : program.params()) {
            orderedParams.put(p.name(), params.get(p.name()));
        }
        Manifest m = new Manifest(PROGRAM_FILE, codec.hash(program),
                new Manifest.Provenance(Golden.STAGECHECK_VERSION, "interp f32", options.mathMode().spelling(), bounds.method()),
                orderedParams, inputs, refs, outputs, trace, bounds.notes());
        // the manifest last: a directory without one is never taken for a case
        Files.write(dir.resolve(Manifest.FILE_NAME), ManifestCodec.write(m));
        return m;
    }

    private static void write(Path dir, String relative, Tensor t) throws IOException {
        Path p = dir.resolve(relative);
        Files.createDirectories(p.getParent());
        Npy.write(p, t);
    }

}
