package org.stagecheck.cli;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.stagecheck.backend.RunResult;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.FileNameTable;
import org.stagecheck.tensor.io.WriterTemp;
import org.stagecheck.tensor.npy.IoMessages;
import org.stagecheck.tensor.npy.Npy;
import org.stagecheck.tensor.npy.SafeNames;

/**
 * The files of a run (docs/format.md, "Run output directory"): each output and state tensor as
 * {@code OUT/<file name>.npy} (names through {@link SafeNames}, so no name leaves OUT), the index
 * {@code OUT/tensors.json} (the inputs-manifest format: name to file, so that the directory is a
 * valid {@code --state-from} of the next run), and with {@code --trace} every stage's outputs as
 * {@code OUT/trace/<5-digit index>_<file name of the id>.out<k>.npy} with {@code trace/index.json}.
 * The plan of file names is made and checked before the run; the writing comes after it, whole:
 * into this run's own {@code .<OUT>.<random>.stagecheck-tmp} beside OUT, which then replaces OUT
 * ({@link WriterTemp#moveTo}), so a killed run leaves the earlier OUT, none, or this run's, and an
 * earlier run's files never stand beside this run's. An existing OUT is replaced only when it holds
 * nothing but an earlier run's files ({@link EarlierRunOutput}).
 */
final class RunOutputs {
    static final String TRACE = "trace";
    static final String TRACE_INDEX = "index.json";

    private final OutputPaths.OutputDir out;
    private final FileNameTable files = new FileNameTable();
    private final OutputPaths.OutputDir traceDir;
    /** Every file the plan may write, for {@link #refuseInput}. */
    private final List<Path> planned = new ArrayList<>();

    private RunOutputs(OutputPaths.OutputDir out, OutputPaths.OutputDir traceDir) {
        this.out = out;
        this.traceDir = traceDir;
    }

    /** Checks OUT (and OUT/trace) and every file the run may write, before the run. */
    static RunOutputs plan(Path dir, Program program, boolean trace) throws BadInputException {
        OutputPaths.OutputDir out = OutputPaths.directory("--out", dir);
        if (Files.isSymbolicLink(out.path())) {
            // OUT is replaced whole: the directory a link leads to is, never the link itself
            try {
                out = new OutputPaths.OutputDir("--out", out.path().toRealPath());
            } catch (IOException e) {
                throw new BadInputException("--out " + dir + " is a symbolic link that leads to no directory (" + IoMessages.describe(e) + ")");
            }
        }
        OutputPaths.removeLeftoversBeside(out.path());
        EarlierRunOutput.refuseForeign(out.path());
        RunOutputs plan = new RunOutputs(out, trace ? out.subdirectory(TRACE) : null);
        for (TensorDecl t : program.tensors()) {
            if (t.role().isResult()) {
                plan.check(out, plan.files.fileOf(t.name(), ".npy"));
            }
        }
        plan.check(out, RunInputs.INDEX);
        if (trace) {
            List<Stage> stages = program.stages();
            for (int i = 0; i < stages.size(); i++) {
                for (int k = 0; k < stages.get(i).outs().size(); k++) {
                    plan.check(plan.traceDir, traceFile(i, stages.get(i), k));
                }
            }
            plan.check(plan.traceDir, TRACE_INDEX);
        }
        return plan;
    }

    private void check(OutputPaths.OutputDir dir, String child) throws BadInputException {
        dir.checkFile(child);
        planned.add(dir.path().resolve(child));
    }

    /**
     * Refuses a file the command reads (the program, a {@code --bind} file) that the run would
     * replace: {@code --bind x=OUT/y.npy} would lose its file to output {@code y}. State read with
     * {@code --state-from OUT} and written back to {@code OUT} is a step in place, not refused here.
     */
    void refuseInput(Path input) throws BadInputException {
        for (Path p : planned) {
            InputOverlap.refuse(new OutputPaths.OutputFile("--out", p), List.of(input), List.of());
        }
    }

    /** The file of a tensor in OUT. */
    Path fileOf(String tensor) {
        return out.path().resolve(files.fileOf(tensor, ".npy"));
    }

    /**
     * Writes the output and state tensors (only after a run without fault: after one they are
     * incomplete) and the trace; returns the names written.
     */
    List<String> write(Program program, RunResult result) throws BadInputException {
        Path target = out.path();
        List<String> written = new ArrayList<>();
        Map<String, String> index = new LinkedHashMap<>();
        try {
            Files.createDirectories(target.getParent());
            try (WriterTemp tmp = WriterTemp.directory(target)) {
                Path staging = tmp.path();
                for (TensorDecl t : program.tensors()) {
                    Tensor v = result.tensors().get(t.name());
                    if (v != null && result.ok() && t.role().isResult()) {
                        String file = files.fileOf(t.name(), ".npy");
                        Npy.write(SafeNames.child(staging, file), v);
                        index.put(t.name(), file);
                        written.add(t.name());
                    }
                }
                if (result.ok()) {
                    String programHash = new org.stagecheck.spec.json.ProgramCodec().hash(program);
                    new OutputPaths.OutputFile("--out", staging.resolve(RunInputs.INDEX)).write(o -> writeIndex(o, index, programHash));
                }
                if (traceDir != null && !result.trace().isEmpty()) {
                    writeTrace(program, result, Files.createDirectory(staging.resolve(TRACE)));
                }
                tmp.moveTo(target);
            }
        } catch (IOException e) {
            throw new BadInputException("--out " + target + ": cannot write: " + IoMessages.describe(e));
        }
        return written;
    }

    private void writeTrace(Program program, RunResult result, Path dir) throws IOException, BadInputException {
        List<Stage> stages = program.stages();
        List<TraceEntry> entries = new ArrayList<>();
        for (int i = 0; i < stages.size(); i++) {
            List<Tensor> values = result.trace().get(stages.get(i).id());
            if (values == null) {
                continue;
            }
            List<String> names = new ArrayList<>();
            for (int k = 0; k < values.size(); k++) {
                String file = traceFile(i, stages.get(i), k);
                Npy.write(SafeNames.child(dir, file), values.get(k));
                names.add(file);
            }
            entries.add(new TraceEntry(i, stages.get(i).id(), names));
        }
        new OutputPaths.OutputFile("--out", dir.resolve(TRACE_INDEX)).write(o -> {
            try (JsonGenerator g = new JsonFactory().createGenerator(o, JsonEncoding.UTF8)) {
                g.useDefaultPrettyPrinter();
                g.writeStartObject();
                g.writeStringField("format", "stagecheck-trace");
                g.writeNumberField("version", 1);
                g.writeArrayFieldStart("stages");
                for (TraceEntry e : entries) {
                    g.writeStartObject();
                    g.writeNumberField("index", e.index());
                    g.writeStringField("id", e.id());
                    g.writeArrayFieldStart("outs");
                    for (String f : e.outs()) {
                        g.writeString(f);
                    }
                    g.writeEndArray();
                    g.writeEndObject();
                }
                g.writeEndArray();
                g.writeEndObject();
                g.writeRaw('\n');
            }
        });
    }

    private record TraceEntry(int index, String id, List<String> outs) {}

    /** {@code 00003_<file name of the id>.out0.npy}: the index keeps it unique whatever the id. */
    static String traceFile(int index, Stage stage, int port) {
        return String.format(Locale.ROOT, "%05d_%s.out%d.npy", index, SafeNames.encode(stage.id()), port);
    }

    /** The index, naming the program that was run so that {@code golden check --actual} can tell its version. */
    private static void writeIndex(java.io.OutputStream o, Map<String, String> index, String programHash) throws IOException {
        new org.stagecheck.spec.json.InputsManifestCodec().write(new org.stagecheck.spec.json.InputsManifest(index, Map.of(), null, programHash), o);
    }
}
