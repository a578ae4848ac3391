package org.stagecheck.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.Precision;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.backend.RunResult;
import org.stagecheck.tensor.npy.Npy;
import org.stagecheck.tensor.npy.TensorFileException;
import org.stagecheck.tensor.RandomBindings;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.spec.validate.Validator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code stagecheck run}: the reference evaluation of a program. */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = {"Run a program on the reference interpreter and write its output tensors as .npy.",
                "Bound tensors (input, weight, state) come from --inputs DIR (DIR/inputs.json, else DIR/<tensor>.npy),",
                "or are generated deterministically from --random SEED. Exit 0 on success, 1 on a runtime fault,",
                "2 on bad input."})
final class RunCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "PROGRAM", description = "program file (.json)")
    Path programFile;

    @Option(names = "--inputs", paramLabel = "DIR", description = "directory of bound tensors (.npy) and optional inputs.json")
    Path inputs;

    @Option(names = "--random", paramLabel = "SEED", description = "generate every bound tensor not found in --inputs from this seed")
    Long seed;

    @Option(names = "--param", paramLabel = "NAME=VALUE", description = "bind a program parameter (repeatable; overrides inputs.json)")
    Map<String, Long> paramOverrides = new LinkedHashMap<>();

    @Option(names = "--out", paramLabel = "DIR", required = true, description = "directory for the output (and state) tensors")
    Path out;

    @Option(names = "--trace", description = "also write every stage's outputs to OUT/trace/")
    boolean trace;

    @Option(names = "--f64", description = "evaluate every operation in float64 (the 'true value' mode)")
    boolean f64;

    @Option(names = "--stop-at-nonfinite", description = "stop at the first stage that produces NaN or Inf, and name it")
    boolean stopAtNonFinite;

    @Option(names = "--threads", paramLabel = "N", description = "worker threads (results are identical for every N); default: all cores")
    Integer threads;

    @Option(names = "--json", description = "print one JSON document instead of text")
    boolean json;

    @Override
    public Integer call() throws IOException {
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            LoadedProgram lp = LoadedProgram.read(programFile);
            Program program = lp.program();
            List<Diagnostic> invalid = new Validator().validate(program);
            if (!invalid.isEmpty()) {
                for (Diagnostic d : invalid) {
                    err.println(DiagnosticOutput.text(d, lp::where));
                }
                err.println(programFile + ": not well-formed; nothing was run");
                err.flush();
                return ExitCode.CHECK_FAILED;
            }
            checkMemory(program);
            InputsManifest manifest = inputs == null ? new InputsManifest(Map.of(), Map.of()) : InputsManifest.readOrEmpty(inputs);
            Map<String, Tensor> bound = bind(program, manifest);
            Map<String, Long> params = params(program, manifest);
            RunOptions options = RunOptions.defaults()
                    .withTrace(trace)
                    .withPrecision(f64 ? Precision.F64 : Precision.F32)
                    .withStopAtNonFinite(stopAtNonFinite);
            if (threads != null) {
                if (threads < 1) {
                    throw new BadInputException("--threads must be at least 1");
                }
                options = options.withThreads(threads);
            }
            long t0 = System.nanoTime();
            RunResult result = new Interpreter(options).run(program, bound, params);
            long micros = (System.nanoTime() - t0) / 1000;
            List<String> written = write(program, result);
            report(stdout, lp, result, written, micros);
            return result.ok() ? ExitCode.OK : ExitCode.CHECK_FAILED;
        } catch (BadInputException e) {
            err.println("error: " + e.getMessage());
            err.flush();
            return ExitCode.BAD_INPUT;
        }
    }

    /**
     * Refuses, before allocating anything, a program whose tensors and buffers cannot all be held
     * in this JVM's heap: the evaluator keeps every DRAM tensor and every buffer live for the run.
     */
    private static void checkMemory(Program program) throws BadInputException {
        long bytes = 0;
        for (TensorDecl t : program.tensors()) {
            bytes = Math.addExact(bytes, t.shape().elementCount() * t.dtype().byteSize());
        }
        for (var b : program.buffers()) {
            bytes = Math.addExact(bytes, b.shape().elementCount() * b.dtype().byteSize());
        }
        long max = Runtime.getRuntime().maxMemory();
        if (bytes > max - (max >> 3)) {
            throw new BadInputException(String.format(java.util.Locale.ROOT,
                    "the program's tensors and buffers take %.1f GiB, more than this JVM can hold (%.1f GiB); "
                            + "give more with STAGECHECK_JAVA_OPTS=-Xmx<size>", bytes / (double) (1L << 30), max / (double) (1L << 30)));
        }
    }

    private Map<String, Tensor> bind(Program program, InputsManifest manifest) throws BadInputException {
        Map<String, Tensor> bound = new LinkedHashMap<>();
        List<String> missing = new ArrayList<>();
        for (TensorDecl t : program.tensors()) {
            if (!t.role().isBoundBeforeRun()) {
                continue;
            }
            Path file = manifest.tensors().get(t.name());
            if (file == null && inputs != null) {
                file = inputs.resolve(t.name() + ".npy");
            }
            if (file != null && Files.exists(file)) {
                Tensor v = readTensor(file, t.dtype());
                if (v.dtype() != t.dtype() || !v.shape().equals(t.shape())) {
                    throw new BadInputException(file + " holds " + v.dtype() + v.shape() + " but tensor '" + t.name() + "' is " + t.dtype() + t.shape());
                }
                bound.put(t.name(), v);
            } else if (seed != null) {
                bound.put(t.name(), RandomBindings.of(t, seed));
            } else if (t.role() == TensorRole.STATE) {
                bound.put(t.name(), Tensor.zeros(t.dtype(), t.shape()));
            } else {
                missing.add(t.name() + (file == null ? "" : " (" + file + ")"));
            }
        }
        if (!missing.isEmpty()) {
            throw new BadInputException("missing input file(s) for " + String.join(", ", missing)
                    + (inputs == null ? "; give --inputs DIR or --random SEED" : ""));
        }
        return bound;
    }

    private static Tensor readTensor(Path file, org.stagecheck.spec.ir.DType declared) throws BadInputException {
        try {
            return Npy.read(file, declared);
        } catch (TensorFileException e) {
            throw new BadInputException(e.getMessage());
        }
    }

    private Map<String, Long> params(Program program, InputsManifest manifest) throws BadInputException {
        Map<String, Long> values = new LinkedHashMap<>(manifest.params());
        values.putAll(paramOverrides);
        List<String> missing = new ArrayList<>();
        for (Param p : program.params()) {
            Long v = values.get(p.name());
            if (v == null) {
                missing.add(p.name() + " in [" + p.min() + ", " + p.max() + "]");
            } else if (v < p.min() || v > p.max()) {
                throw new BadInputException("parameter " + p.name() + " = " + v + " is outside its declared range [" + p.min() + ", " + p.max() + "]");
            }
        }
        for (String name : values.keySet()) {
            if (program.params().stream().noneMatch(p -> p.name().equals(name))) {
                throw new BadInputException("the program has no parameter '" + name + "'");
            }
        }
        if (!missing.isEmpty()) {
            throw new BadInputException("unbound parameter(s): " + String.join(", ", missing) + "; give --param NAME=VALUE");
        }
        return values;
    }

    /** Writes output and state tensors (and the trace), each file atomically. */
    private List<String> write(Program program, RunResult result) throws IOException {
        Files.createDirectories(out);
        List<String> written = new ArrayList<>();
        for (TensorDecl t : program.tensors()) {
            Tensor v = result.tensors().get(t.name());
            // After a fault the outputs are incomplete: only the trace (to debug it) is written.
            if (v != null && result.ok() && (t.role() == TensorRole.OUTPUT || t.role() == TensorRole.STATE)) {
                Npy.write(out.resolve(t.name() + ".npy"), v);
                written.add(t.name());
            }
        }
        if (trace && !result.trace().isEmpty()) {
            Path dir = out.resolve("trace");
            Files.createDirectories(dir);
            List<Stage> stages = program.stages();
            for (int i = 0; i < stages.size(); i++) {
                List<Tensor> values = result.trace().get(stages.get(i).id());
                if (values == null) {
                    continue;
                }
                for (int k = 0; k < values.size(); k++) {
                    Npy.write(dir.resolve(String.format("%05d_%s.out%d.npy", i, stages.get(i).id(), k)), values.get(k));
                }
            }
        }
        return written;
    }

    private void report(PrintWriter o, LoadedProgram lp, RunResult result, List<String> written, long micros) {
        Program program = lp.program();
        if (json) {
            Json.print(o, g -> {
                g.writeStartObject();
                g.writeStringField("command", "run");
                g.writeStringField("program", program.name());
                g.writeBooleanField("holds", result.ok());
                g.writeStringField("precision", f64 ? "f64" : "f32");
                g.writeNumberField("micros", micros);
                if (result.stoppedAtStage() != null) {
                    g.writeStringField("stoppedAtStage", result.stoppedAtStage());
                }
                g.writeArrayFieldStart("tensors");
                for (String name : written) {
                    TensorSummary s = TensorSummary.of(result.tensors().get(name));
                    g.writeStartObject();
                    g.writeStringField("name", name);
                    g.writeStringField("file", out.resolve(name + ".npy").toString());
                    s.json(g);
                    g.writeEndObject();
                }
                g.writeEndArray();
                DiagnosticOutput.jsonList(g, "faults", result.faults(), lp::where);
                g.writeEndObject();
            });
            return;
        }
        for (String name : written) {
            o.println(name + "  " + TensorSummary.of(result.tensors().get(name)).text());
        }
        for (Diagnostic d : result.faults()) {
            o.println(DiagnosticOutput.text(d, lp::where));
        }
        String mode = f64 ? "f64" : "f32 reference";
        if (result.ok()) {
            o.println("ran " + program.stages().size() + " stages of " + program.name() + " in " + (micros / 1000.0)
                    + " ms (" + mode + "); wrote " + written.size() + " tensor(s) to " + out);
        } else {
            o.println("FAULT: " + program.name() + " stopped at stage '" + result.stoppedAtStage() + "' (" + mode
                    + "); no output tensors written" + (trace ? ", the trace up to that stage is in " + out.resolve("trace") : ""));
        }
        o.flush();
    }
}
