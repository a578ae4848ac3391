package org.stagecheck.golden.debug;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.stagecheck.backend.RunResult;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.Npy;
import org.stagecheck.tensor.npy.SafeNames;
import org.stagecheck.tensor.npy.TensorFileException;

/**
 * What one side of a comparison recorded of a run: the output ports' values of the stages it
 * traced (any subset; a backend that fuses stages traces the ones it kept) and the DRAM tensors it
 * wrote (outputs and state). On disk this is the layout {@code stagecheck run --trace --out DIR}
 * writes: {@code DIR/<tensor>.npy} and {@code DIR/trace/NNNNN_<stage id>.out<K>.npy}, names in
 * {@link SafeNames}' file-name spelling.
 *
 * @param stages  stage id to its output ports' values in port order
 * @param tensors DRAM tensor name to its value after the run
 */
public record StageTrace(Map<String, List<Tensor>> stages, Map<String, Tensor> tensors) {
    private static final Pattern TRACE_FILE = Pattern.compile("(\\d{5})_(.+)\\.out(\\d+)\\.npy");

    public StageTrace {
        stages = Collections.unmodifiableMap(new LinkedHashMap<>(stages));
        tensors = Collections.unmodifiableMap(new LinkedHashMap<>(tensors));
    }

    /** A run's trace and its output and state tensors. */
    public static StageTrace of(Program program, RunResult run) {
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        for (TensorDecl d : program.tensors()) {
            Tensor t = run.tensors().get(d.name());
            if (t != null && isWritten(d)) {
                tensors.put(d.name(), t);
            }
        }
        return new StageTrace(run.trace(), tensors);
    }

    /** Only the DRAM tensors of a run: what a backend writes without tracing. */
    public static StageTrace finalOnly(Program program, RunResult run) {
        return new StageTrace(Map.of(), of(program, run).tensors());
    }

    /** This trace keeping only the stages {@code keep} names (the rest as if never traced). */
    public StageTrace onlyStages(java.util.Set<String> keep) {
        Map<String, List<Tensor>> s = new LinkedHashMap<>();
        stages.forEach((id, v) -> {
            if (keep.contains(id)) {
                s.put(id, v);
            }
        });
        return new StageTrace(s, tensors);
    }

    static boolean isWritten(TensorDecl d) {
        return switch (d.role()) {
            case OUTPUT, STATE -> true;
            case INPUT, WEIGHT, SCRATCH -> false;
        };
    }

    /**
     * Reads a directory as {@code run --trace} writes it: {@code DIR/trace/*.npy} (or trace files
     * directly in DIR) and DIR's {@code <tensor>.npy} files for the program's output and state
     * tensors. A trace file must name a stage of the program at its index.
     *
     * @throws DebugInputException naming the file, for an unreadable file or one that does not fit the program
     */
    public static StageTrace read(Path dir, Program program) throws DebugInputException {
        if (!Files.isDirectory(dir)) {
            throw new DebugInputException(dir + ": not a directory");
        }
        Path traceDir = Files.isDirectory(dir.resolve("trace")) ? dir.resolve("trace") : dir;
        Map<Integer, TreeMap<Integer, Tensor>> byStage = new TreeMap<>();
        List<Stage> stages = program.stages();
        try (Stream<Path> files = Files.list(traceDir)) {
            for (Path f : files.sorted().toList()) {
                Matcher m = TRACE_FILE.matcher(f.getFileName().toString());
                if (!m.matches()) {
                    continue;
                }
                int index = traceNumber(f, m.group(1), "stage index");
                // the id is spelled as run --trace spells it: SafeNames' encoding (plain ids unchanged)
                if (index >= stages.size() || !SafeNames.encode(stages.get(index).id()).equals(m.group(2))) {
                    throw new DebugInputException(f + ": the program has no stage '" + m.group(2) + "' at index " + index
                            + " (is this the trace of another program?)");
                }
                int port = traceNumber(f, m.group(3), "port");
                if (port >= stages.get(index).outs().size()) {
                    throw new DebugInputException(f + ": stage '" + m.group(2) + "' has " + stages.get(index).outs().size() + " output port(s)");
                }
                byStage.computeIfAbsent(index, k -> new TreeMap<>()).put(port, readNpy(f));
            }
        } catch (IOException e) {
            throw new DebugInputException(traceDir + ": cannot list: " + e.getMessage());
        }
        Map<String, List<Tensor>> out = new LinkedHashMap<>();
        for (var e : byStage.entrySet()) {
            Stage st = stages.get(e.getKey());
            if (e.getValue().size() != st.outs().size()) {
                throw new DebugInputException(traceDir + ": stage '" + st.id() + "' has " + st.outs().size()
                        + " output port(s) but " + e.getValue().size() + " trace file(s)");
            }
            out.put(st.id(), new ArrayList<>(e.getValue().values()));
        }
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        for (TensorDecl d : program.tensors()) {
            Path f = dir.resolve(SafeNames.encode(d.name()) + ".npy");
            if (isWritten(d) && Files.isRegularFile(f)) {
                tensors.put(d.name(), readNpy(f));
            }
        }
        return new StageTrace(out, tensors);
    }

    private static Tensor readNpy(Path f) throws DebugInputException {
        try {
            return Npy.read(f);
        } catch (TensorFileException e) {
            throw new DebugInputException(e.getMessage());
        }
    }

    /** Whether anything at all was recorded. */
    public boolean isEmpty() {
        return stages.isEmpty() && tensors.isEmpty();
    }

    /** A stage index or port of a trace file name, refused past the range of an int (no program has that many). */
    private static int traceNumber(Path f, String digits, String what) throws DebugInputException {
        try {
            return Integer.parseInt(digits);
        } catch (NumberFormatException e) {
            throw new DebugInputException(f + ": the " + what + " " + digits + " is out of range for any program");
        }
    }
}
