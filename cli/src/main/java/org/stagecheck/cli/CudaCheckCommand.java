package org.stagecheck.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import org.stagecheck.cuda.CudaBackend;
import org.stagecheck.cuda.CudaOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code stagecheck cuda check}: the one-command check of the CUDA backend on a target (the GPU by
 * default, host emulation with {@code --emulate}), against the reference interpreter: the
 * conformance suite, every example program, the golden tiny decode cases eager and with graphs,
 * graph mode's fall-backs, and the device benchmark ({@link CudaCheck}). One table; exit 0 when
 * every check passed, 1 when any failed, 2 for bad input or no driver.
 */
@Command(name = "check", mixinStandardHelpOptions = true,
        description = {"Check the CUDA backend against the reference interpreter in one command: the conformance suite, every example program,"
                + " the golden cases tiny-decode and tiny-decode-tp2 (eager and with graphs), graph mode's stale-recapture and capture-failure"
                + " fall-backs, and the device benchmark (not under --emulate).",
                "--emulate checks host emulation and --fake-driver the driver path on the fake driver, for machines without a GPU.",
                "Prints one table (check, backend, result, seconds, detail); exit 0 all passed, 1 any failed, 2 bad input or no CUDA driver."})
final class CudaCheckCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--emulate", description = "check host emulation (the kernels compiled by g++ and run on the CPU) instead of the GPU")
    boolean emulate;

    @Option(names = "--fake-driver", description = "check the driver path (the same launches, graphs and copies as on a GPU) on the fake"
            + " driver, which runs the kernels' host-emulation build: for machines without a GPU")
    boolean fakeDriver;

    @Option(names = "--examples", paramLabel = "DIR", description = "the example programs, DIR/*.json (default: examples)")
    Path examples = Path.of("examples");

    @Option(names = "--cases", paramLabel = "DIR", description = "the golden cases; tiny-decode and tiny-decode-tp2 are checked (default: golden/cases)")
    Path cases = Path.of("golden", "cases");

    @Option(names = "--json", description = "print one JSON document instead of the table (and no progress lines)")
    boolean json;

    /** Where the kernels run, from the options. */
    private CudaOptions.Target target() {
        return emulate ? CudaOptions.Target.EMULATION : fakeDriver ? CudaOptions.Target.FAKE_DRIVER : CudaOptions.Target.DEVICE;
    }

    @Override
    public Integer call() {
        CudaCheck.Outcome outcome;
        try {
            if (emulate && fakeDriver) {
                throw new BadInputException("--emulate and --fake-driver choose different targets: give one");
            }
            CudaCheckInputs inputs = CudaCheckInputs.read(examples, cases);
            // -O0: the values are the same at every level, and the one large unit compiles fastest
            CudaOptions options = CudaOptions.emulation().withTarget(target()).withHostOpt(0);
            var progress = ProgressLines.to(spec.commandLine().getErr(), "cuda check", json);
            outcome = new CudaCheck(options, new CudaBackend(options).factory(), inputs, progress).run();
        } catch (BadInputException e) {
            return Reply.badInput(spec.commandLine(), json, e.getMessage(), g -> {
                g.writeArrayFieldStart("checks");
                g.writeEndArray();
            });
        }
        List<CheckRow> rows = outcome.rows();
        int code = rows.stream().anyMatch(CheckRow::failed) ? ExitCode.CHECK_FAILED : ExitCode.OK;
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            Json.print(out, g -> {
                g.writeStartObject();
                g.writeStringField("command", "cuda check");
                g.writeBooleanField("holds", code == ExitCode.OK);
                g.writeStringField("status", code == ExitCode.OK ? "passed" : "failed");
                g.writeNumberField("exitCode", code);
                CheckTable.json(g, rows);
                if (outcome.benchText() == null) {
                    g.writeNullField("bench");
                } else {
                    g.writeStringField("bench", outcome.benchText());
                }
                g.writeEndObject();
            });
        } else {
            out.print(CheckTable.text(rows));
            if (outcome.benchText() != null) {
                out.println();
                out.print(outcome.benchText());
            }
            out.println(CheckTable.summary(rows));
            out.flush();
        }
        return code;
    }
}
