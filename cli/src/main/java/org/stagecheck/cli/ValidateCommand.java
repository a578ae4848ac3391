package org.stagecheck.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.stagecheck.api.LoadedProgram;
import org.stagecheck.api.PlacedDiagnostic;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code stagecheck validate FILE...}: structural validation of programs. */
@Command(name = "validate", mixinStandardHelpOptions = true,
        description = {"Check that programs are well-formed: references resolve, shapes and dtypes fit each stage kind,",
                "expressions type-check, sub-blocks tile, blocks stay inside their tensors for every parameter value.",
                "Exit 0 when all are well-formed, 1 when one is not, 2 when a file cannot be read."})
final class ValidateCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "FILE", description = "program files (.json)")
    List<Path> files;

    @Option(names = "--json", description = "print one JSON document instead of text")
    boolean json;

    @Option(names = "--junit", paramLabel = "FILE", description = "also write a JUnit XML report: each program file a test, one failure per finding")
    Path junit;

    /** The outcome for one file: its diagnostics, or the reason it could not be read, and how long that took. */
    private record Outcome(Path file, LoadedProgram loaded, List<PlacedDiagnostic> diagnostics, String badInput, Duration time) {}

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        OutputPaths.OutputFile junitOut;
        try {
            // the output is checked before the work: a bad --junit path fails fast, leaving nothing
            junitOut = junit == null ? null : OutputPaths.file("--junit", junit);
            if (junitOut != null) {
                InputOverlap.refuse(junitOut, files, List.of());
            }
        } catch (BadInputException e) {
            return Reply.badInput(spec.commandLine(), json, e.getMessage());
        }
        List<Outcome> outcomes = new ArrayList<>();
        int exit = ExitCode.OK;
        for (Path file : files) {
            long t0 = System.nanoTime();
            try {
                LoadedProgram lp = Load.program(file);
                List<PlacedDiagnostic> ds = lp.validate().diagnostics();
                outcomes.add(new Outcome(file, lp, ds, null, Duration.ofNanos(System.nanoTime() - t0)));
                exit = ExitCode.worst(exit, ds.isEmpty() ? ExitCode.OK : ExitCode.CHECK_FAILED);
            } catch (BadInputException e) {
                outcomes.add(new Outcome(file, null, List.of(), e.getMessage(), Duration.ofNanos(System.nanoTime() - t0)));
                exit = ExitCode.worst(exit, ExitCode.BAD_INPUT);
            }
        }
        if (junitOut != null) {
            try {
                junitOut.write(JunitReports.validate(outcomes.stream()
                        .map(o -> new JunitReports.Validated(o.file(), o.diagnostics(), o.badInput(), o.time())).toList())
                        .getBytes(StandardCharsets.UTF_8));
            } catch (BadInputException e) {
                return Reply.badInput(spec.commandLine(), json, e.getMessage());
            }
        }
        PrintWriter err = spec.commandLine().getErr();
        for (Outcome o : outcomes) {
            if (o.badInput() != null) {
                err.println("error: " + Reply.oneLine(o.badInput())); // on stderr with --json too, as every command's bad input
            }
        }
        err.flush();
        if (json) {
            final int code = exit;
            Json.print(out, g -> {
                g.writeStartObject();
                g.writeStringField("command", "validate");
                g.writeBooleanField("holds", code == ExitCode.OK);
                g.writeStringField("status", code == ExitCode.OK ? "valid" : code == ExitCode.CHECK_FAILED ? "invalid" : "bad-input");
                g.writeNumberField("exitCode", code);
                if (code == ExitCode.BAD_INPUT) {
                    g.writeStringField("error", String.join("; ", outcomes.stream().filter(o -> o.badInput() != null).map(Outcome::badInput).toList()));
                }
                g.writeArrayFieldStart("files");
                for (Outcome o : outcomes) {
                    g.writeStartObject();
                    g.writeStringField("file", o.file().toString());
                    if (o.badInput() != null) {
                        g.writeStringField("status", "bad-input");
                        g.writeStringField("error", o.badInput());
                    } else {
                        g.writeStringField("status", o.diagnostics().isEmpty() ? "valid" : "invalid");
                        g.writeStringField("program", o.loaded().program().name());
                        DiagnosticOutput.jsonPlaced(g, "diagnostics", o.diagnostics());
                    }
                    g.writeEndObject();
                }
                g.writeEndArray();
                g.writeEndObject();
            });
        } else {
            for (Outcome o : outcomes) {
                if (o.badInput() != null) {
                    // said on stderr above
                } else if (o.diagnostics().isEmpty()) {
                    out.println(o.file() + ": valid (" + o.loaded().program().name() + ", "
                            + o.loaded().program().stages().size() + " stages)");
                } else {
                    for (PlacedDiagnostic d : o.diagnostics()) {
                        out.println(d.render());
                    }
                    out.println(o.file() + ": " + o.diagnostics().size() + " problem(s)");
                }
            }
            out.flush();
        }
        return exit;
    }
}
