package org.stagecheck.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.stagecheck.interp.NonFiniteStop;
import org.stagecheck.interp.Precision;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.backend.RunResult;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.validate.Validator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code stagecheck run}: the reference evaluation of a program. The reading of inputs, the
 * binding of parameters, the writing of {@code .npy} files and the report are shared with
 * {@code stagecheck cuda run}, which overrides only {@link #execute} and {@link #mode}.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = {"Run a program on the reference interpreter and write its output and state tensors as .npy,",
                "with their index OUT/tensors.json. Bound tensors (input, weight, state) come from --bind, --state-from DIR",
                "(a previous run's OUT), --inputs DIR (DIR/inputs.json, else DIR/<tensor>.npy), or are generated",
                "deterministically from --random SEED. Exit 0 on success, 1 on a runtime fault, 2 on bad input."})
class RunCommand implements Callable<Integer> {
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

    @Option(names = "--stop-at-nonfinite", paramLabel = "nan|inf|any", arity = "0..1", fallbackValue = "nan",
            description = {"stop at the first stage that writes such a value, and name it: nan (the default when the",
                    "flag is bare: a causal mask's -inf is intended), inf, or any (NaN or infinity)"})
    String stopAtNonFinite;

    @Option(names = "--state-from", paramLabel = "DIR",
            description = "take every state tensor from DIR, a previous run's --out (its tensors.json): one decode step after another")
    Path stateFrom;

    @Option(names = "--bind", paramLabel = "NAME=FILE", description = "bind one input, weight or state tensor to a .npy file (repeatable; overrides the rest)")
    Map<String, Path> binds = new LinkedHashMap<>();

    @Option(names = "--threads", paramLabel = "N", description = "worker threads (results are identical for every N); default: all cores")
    Integer threads;

    @Option(names = "--json", description = "print one JSON document instead of text")
    boolean json;

    @Override
    public Integer call() {
        PrintWriter stdout = spec.commandLine().getOut();
        try {
            LoadedProgram lp = LoadedProgram.read(programFile);
            Program program = lp.program();
            List<Diagnostic> invalid = new Validator().validate(program);
            if (!invalid.isEmpty()) {
                return notWellFormed(lp, invalid);
            }
            NonFiniteStop stopAt = stopMode();
            if (threads != null && threads < 1) {
                throw new BadInputException("--threads must be at least 1");
            }
            // Everything that can be refused is refused before the work: outputs, memory, inputs.
            RunOutputs outputs = RunOutputs.plan(out, program, trace);
            outputs.refuseInput(programFile);
            for (Path bound : binds.values()) {
                outputs.refuseInput(bound);
            }
            MemoryEstimate memory = MemoryEstimate.of(program, f64, trace);
            memory.check(Runtime.getRuntime().maxMemory());
            RunInputs in = new RunInputs(inputs == null ? null : InputsDir.of("--inputs", inputs),
                    stateFrom == null ? null : InputsDir.of("--state-from", stateFrom), binds, seed, f64);
            InputsManifest manifest = in.manifest();
            Map<String, Long> params = RunInputs.params(program, manifest, paramOverrides);
            Map<String, Tensor> bound = in.bind(program, manifest);
            RunOptions options = RunOptions.defaults().withTrace(trace).withPrecision(f64 ? Precision.F64 : Precision.F32).withStopAt(stopAt);
            if (threads != null) {
                options = options.withThreads(threads);
            }
            long t0 = System.nanoTime();
            RunResult result = execute(program, bound, params, options);
            long micros = (System.nanoTime() - t0) / 1000;
            if (!result.ok() && result.faults().stream().anyMatch(d -> d.code().equals("OUT_OF_MEMORY"))) {
                // the same outcome as the check above, whichever mode ran out
                throw new BadInputException(memory.ranOut(Runtime.getRuntime().maxMemory(), result.stoppedAtStage()));
            }
            if (!result.ok() && result.stoppedAtStage() == null) {
                // refused before any stage: the bindings or parameters, which are the user's input
                throw new BadInputException(result.faults().stream().map(Diagnostic::render).collect(java.util.stream.Collectors.joining("; ")));
            }
            List<String> written = outputs.write(program, result);
            report(stdout, lp, result, outputs, written, micros);
            return result.ok() ? ExitCode.OK : ExitCode.CHECK_FAILED;
        } catch (BadInputException e) {
            return Reply.badInput(spec.commandLine(), json, e.getMessage());
        }
    }

    /** Runs the program: the reference interpreter here, another backend in a subclass. */
    RunResult execute(Program program, Map<String, Tensor> bound, Map<String, Long> params, RunOptions options)
            throws BadInputException {
        return Backends.reference(options).run(program, bound, params);
    }

    /** The evaluation mode for the report, e.g. {@code f32 reference}. */
    String mode() {
        return f64 ? "f64" : "f32 reference";
    }

    private int notWellFormed(LoadedProgram lp, List<Diagnostic> invalid) {
        PrintWriter err = spec.commandLine().getErr();
        if (json) {
            Json.print(spec.commandLine().getOut(), g -> {
                g.writeStartObject();
                g.writeStringField("command", "run");
                g.writeStringField("program", lp.program().name());
                g.writeBooleanField("holds", false);
                g.writeStringField("status", "not-well-formed");
                g.writeNumberField("exitCode", ExitCode.CHECK_FAILED);
                DiagnosticOutput.jsonList(g, "diagnostics", invalid, lp::where);
                g.writeEndObject();
            });
        }
        for (Diagnostic d : invalid) {
            err.println(DiagnosticOutput.text(d, lp::where));
        }
        err.println(programFile + ": not well-formed; nothing was run");
        err.flush();
        return ExitCode.CHECK_FAILED;
    }

    private NonFiniteStop stopMode() throws BadInputException {
        if (stopAtNonFinite == null) {
            return NonFiniteStop.NONE;
        }
        NonFiniteStop m = NonFiniteStop.parse(stopAtNonFinite);
        if (m == null) {
            throw new BadInputException("--stop-at-nonfinite takes nan, inf, any or none, not '" + stopAtNonFinite + "'");
        }
        return m;
    }


    private void report(PrintWriter o, LoadedProgram lp, RunResult result, RunOutputs outputs, List<String> written, long micros) {
        Program program = lp.program();
        if (json) {
            Json.print(o, g -> {
                g.writeStartObject();
                g.writeStringField("command", "run");
                g.writeStringField("program", program.name());
                g.writeBooleanField("holds", result.ok());
                g.writeStringField("status", result.ok() ? "ran" : "fault");
                g.writeNumberField("exitCode", result.ok() ? ExitCode.OK : ExitCode.CHECK_FAILED);
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
                    g.writeStringField("file", outputs.fileOf(name).toString());
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
        String mode = mode();
        if (result.ok()) {
            o.println("ran " + program.stages().size() + " stages of " + program.name() + " in " + (micros / 1000.0)
                    + " ms (" + mode + "); wrote " + written.size() + " tensor(s) to " + out);
        } else {
            o.println("FAULT: " + program.name() + " stopped at stage '" + result.stoppedAtStage() + "' (" + mode
                    + "); no output tensors written" + (trace ? ", the trace up to that stage is in " + out.resolve(RunOutputs.TRACE) : ""));
        }
        o.flush();
    }
}
