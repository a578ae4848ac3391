package org.stagecheck.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.stagecheck.api.LoadedProgram;
import org.stagecheck.backend.RunResult;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.validate.Validator;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.inputs.InputsManifest;
import picocli.CommandLine.Model.CommandSpec;

/**
 * What {@code run} and {@code cuda run} do alike: read and validate the program, refuse bad input
 * before the work (outputs, memory, inputs), bind the inputs and parameters, run the program on a
 * backend, write the {@code .npy} files and report. Each command brings its own options and its
 * backend as an {@link Execution}.
 */
final class RunPipeline {
    /** One command's backend: its own options checked, then the run. */
    interface Execution {
        /** Checks the command's own options once the program is known to be well-formed. */
        void checkOptions() throws BadInputException;

        /** Runs the program on the command's backend. */
        RunResult run(Program program, Map<String, Tensor> bound, Map<String, Long> params) throws BadInputException;
    }

    private final CommandSpec spec;
    private final RunIoOptions io;
    private final boolean f64;
    private final String mode;

    /**
     * @param f64  whether the run evaluates in float64 (bound tensors widened, memory estimated so)
     * @param mode the evaluation mode for the report, e.g. {@code f32 reference}
     */
    RunPipeline(CommandSpec spec, RunIoOptions io, boolean f64, String mode) {
        this.spec = spec;
        this.io = io;
        this.f64 = f64;
        this.mode = mode;
    }

    int call(Execution execution) {
        PrintWriter stdout = spec.commandLine().getOut();
        try {
            LoadedProgram lp = Load.program(io.source.programFile);
            Program program = lp.program();
            List<Diagnostic> invalid = new Validator().validate(program);
            if (!invalid.isEmpty()) {
                return notWellFormed(lp, invalid);
            }
            execution.checkOptions();
            // Everything that can be refused is refused before the work: outputs, memory, inputs.
            RunOutputs outputs = RunOutputs.plan(io.out, program, io.trace);
            outputs.refuseInput(io.source.programFile);
            for (Path bound : io.binds.values()) {
                outputs.refuseInput(bound);
            }
            if (io.cert != null) {
                outputs.refuseInput(io.cert);
            }
            MemoryEstimate memory = MemoryEstimate.of(program, f64, io.trace);
            memory.check(Runtime.getRuntime().maxMemory());
            long bindStart = System.nanoTime();
            SplitBinds binds = SplitBinds.expand(program, io.source.programFile, io.cert, io.binds, spec.commandLine().getErr());
            RunInputs in = RunInputs.of(io.source.inputs, io.stateFrom, binds.binds(), io.source.seed, f64);
            InputsManifest manifest = in.manifest(program);
            Map<String, Long> params = RunInputs.params(program, manifest, io.source.paramOverrides);
            Map<String, Tensor> bound = in.bind(program, manifest);
            binds.warnDisagreements(program, bound);
            long t0 = System.nanoTime();
            long bindMicros = (t0 - bindStart) / 1000;
            RunResult result = execution.run(program, bound, params);
            long micros = (System.nanoTime() - t0) / 1000;
            if (!result.ok() && result.faults().stream().anyMatch(d -> d.code().equals("OUT_OF_MEMORY"))) {
                // the same outcome as the check above, whichever mode ran out
                throw new BadInputException(memory.ranOut(Runtime.getRuntime().maxMemory(), result.stoppedAtStage()));
            }
            if (!result.ok() && result.stoppedAtStage() == null && result.faults().stream().noneMatch(d -> d.code().startsWith("CUDA_ERROR_"))) {
                // refused before any stage: the bindings or parameters, which are the user's input (a device
                // error no stage could be named for, a kernel's fault the driver reported late, is a failed run)
                throw new BadInputException(result.faults().stream().map(Diagnostic::render).collect(java.util.stream.Collectors.joining("; ")));
            }
            List<String> written = outputs.write(program, result);
            report(stdout, lp, result, outputs, written, micros, bindMicros);
            return result.ok() ? ExitCode.OK : ExitCode.CHECK_FAILED;
        } catch (BadInputException e) {
            return Reply.badInput(spec.commandLine(), io.json, e.getMessage());
        }
    }

    private int notWellFormed(LoadedProgram lp, List<Diagnostic> invalid) {
        PrintWriter err = spec.commandLine().getErr();
        if (io.json) {
            Json.print(spec.commandLine().getOut(), g -> {
                g.writeStartObject();
                g.writeStringField("command", "run");
                g.writeStringField("program", lp.program().name());
                g.writeBooleanField("holds", false);
                g.writeStringField("status", "not-well-formed");
                g.writeNumberField("exitCode", ExitCode.CHECK_FAILED);
                DiagnosticOutput.jsonList(g, "diagnostics", invalid, lp::locate);
                g.writeEndObject();
            });
        }
        for (Diagnostic d : invalid) {
            err.println(DiagnosticOutput.text(d, lp::locate));
        }
        err.println(io.source.programFile + ": not well-formed; nothing was run");
        err.flush();
        return ExitCode.CHECK_FAILED;
    }

    private void report(PrintWriter o, LoadedProgram lp, RunResult result, RunOutputs outputs, List<String> written, long micros, long bindMicros) {
        Program program = lp.program();
        if (io.json) {
            Json.print(o, g -> {
                g.writeStartObject();
                g.writeStringField("command", "run");
                g.writeStringField("program", program.name());
                g.writeBooleanField("holds", result.ok());
                g.writeStringField("status", result.ok() ? "ran" : "fault");
                g.writeNumberField("exitCode", result.ok() ? ExitCode.OK : ExitCode.CHECK_FAILED);
                g.writeStringField("precision", f64 ? "f64" : "f32");
                g.writeNumberField("micros", micros);
                g.writeNumberField("bindMicros", bindMicros); // reading and binding the inputs, before the run
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
                DiagnosticOutput.jsonList(g, "faults", result.faults(), lp::locate);
                g.writeEndObject();
            });
            return;
        }
        for (String name : written) {
            o.println(name + "  " + TensorSummary.of(result.tensors().get(name)).text());
        }
        for (Diagnostic d : result.faults()) {
            o.println(DiagnosticOutput.text(d, lp::locate));
        }
                if (result.ok()) {
            o.println("ran " + program.stages().size() + " stages of " + program.name() + " in " + (micros / 1000.0)
                    + " ms (" + mode + "); wrote " + written.size() + " tensor(s) to " + io.out);
        } else {
            o.println("FAULT: " + program.name() + " stopped at stage '" + result.stoppedAtStage() + "' (" + mode
                    + "); no output tensors written" + (io.trace ? ", the trace up to that stage is in " + io.out.resolve(RunOutputs.TRACE) : ""));
        }
        o.flush();
    }
}
