package org.stagecheck.cli;

import org.stagecheck.tensor.io.WriterTemp;
import org.stagecheck.tensor.inputs.InputsManifest;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Stream;
import org.stagecheck.api.LoadedProgram;
import org.stagecheck.backend.Backend;
import org.stagecheck.golden.RecordOptions;
import org.stagecheck.backend.MathMode;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.reduce.Budget;
import org.stagecheck.reduce.Candidate;
import org.stagecheck.reduce.CommandOracle;
import org.stagecheck.reduce.FailsLikeOracle;
import org.stagecheck.reduce.FailureOracle;
import org.stagecheck.reduce.FailureReport;
import org.stagecheck.reduce.ReduceResult;
import org.stagecheck.reduce.ReducedFiles;
import org.stagecheck.reduce.Reducer;
import org.stagecheck.reduce.Verdict;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.json.ProgramCodec;
import org.stagecheck.spec.validate.Validator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code stagecheck reduce}: shrink a failing program, keeping the same failure (docs/pass-testing.md,
 * "Reducing"; docs/debugging.md, "Reducing a reported failure"). Slightly over 300 lines: the
 * options and checks of both oracles (a test command, a report) stay together with the one flow
 * that writes the result; what it prints is {@link ReduceReport}'s; its inputs (a directory or a
 * golden case) are read as every command's ({@link RunInputs}).
 */
@Command(name = "reduce", mixinStandardHelpOptions = true,
        description = {"Shrink a failing program to a small one that fails the same way. What fails, one of:",
                "  --test CMD           a shell command, run through sh -c in a directory",
                "                       holding the candidate (program.json, inputs.json,",
                "                       tensors/) with STAGECHECK_PROGRAM and",
                "                       STAGECHECK_INPUTS set; exit 0 passes. The failure",
                "                       kept is the exit status, plus the first text matching",
                "                       --match.",
                "  --fails-like REPORT  the JSON report (--json) of a failing golden check or",
                "                       diff of this program: the candidate runs on the",
                "                       report's backend (or --backend) and the reference,",
                "                       judged under the report's policy; the failure kept is",
                "                       the backend's fault code or the kind of the first",
                "                       divergent stage.",
                "Writes OUT/program.json, OUT/inputs.json, OUT/tensors/ (run: stagecheck run OUT/program.json --inputs OUT) and",
                "OUT/case/, a golden case recorded from the reference on the minimal program. Progress goes to stderr.",
                "Exit 0 reduced, 1 the program does not fail (that way), 2 bad input."})
final class ReduceCommand implements Callable<Integer> {
    /** Finds a backend by name; the command line's own names, or a test's. */
    @FunctionalInterface
    interface BackendLookup {
        Backend named(String name) throws BadInputException;
    }

    /** Seconds between progress lines while no shrink is accepted. */
    private static final long HEARTBEAT_SECONDS = 10;

    private final BackendLookup backends;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "PROGRAM", description = "program file (.json)")
    Path programFile;

    @Option(names = "--inputs", paramLabel = "DIR", required = true, description = "directory of bound tensors (.npy) and inputs.json, or a golden case")
    Path inputs;

    @Option(names = "--test", paramLabel = "CMD", description = "shell command: exit 0 when the candidate passes")
    String test;

    @Option(names = "--match", paramLabel = "REGEX", description = "with --test: the failure must also print the same first match of REGEX")
    String match;

    @Option(names = "--fails-like", paramLabel = "REPORT", description = "a failing golden check or diff JSON report of PROGRAM: keep that failure")
    Path failsLike;

    @Option(names = "--backend", paramLabel = "NAME", description = "with --fails-like: the backend to run instead of the report's")
    String backend;

    @Option(names = "--out", paramLabel = "DIR", required = true, description = "new or empty directory for the minimal program, its inputs and golden case")
    Path out;

    @Option(names = "--max-tries", paramLabel = "N", defaultValue = "2000", description = "oracle runs at most (default 2000)")
    int maxTries;

    @Option(names = "--max-seconds", paramLabel = "S", defaultValue = "600", description = "wall-clock limit (default 600)")
    long maxSeconds;

    @Option(names = "--test-timeout", paramLabel = "S", defaultValue = "120", description = "one test run at most (default 120); longer is a 'timeout' failure")
    long testTimeout;

    @Option(names = "--json", description = "print one JSON document instead of text")
    boolean json;

    ReduceCommand() {
        this(Backends::named);
    }

    ReduceCommand(BackendLookup backends) {
        this.backends = backends;
    }

    /** What decides, and how the golden case of the result is recorded. */
    private record Oracle(FailureOracle oracle, RecordOptions record, String describe, FailureReport report) {}

    /** What the shell says when the test command itself cannot be run: 126 not executable, 127 not found. */
    /** Why the test command could not be run, as the bad-input message says it. */
    private static String couldNotRun(Verdict.Cause cause) {
        return switch (cause) {
            case TEST_NOT_FOUND -> "exit 127: command not found";
            case TEST_NOT_EXECUTABLE -> "exit 126: not executable";
            case TEST_NOT_STARTED -> "cannot run the test command";
            case CANDIDATE -> throw new IllegalArgumentException("the candidate's own failure: the test ran");
        };
    }

    @Override
    public Integer call() throws IOException {
        PrintWriter stdout = spec.commandLine().getOut();
        // progress lines: on stderr, never with --json
        PrintWriter err = json ? new PrintWriter(java.io.Writer.nullWriter()) : spec.commandLine().getErr();
        ReduceReport printer = new ReduceReport(json, out);
        try {
            if ((test == null) == (failsLike == null)) {
                throw new BadInputException("give --test CMD or --fails-like REPORT, one of them");
            }
            if (test != null && test.isBlank()) {
                // sh -c "" exits 0: every candidate would pass, reported as "nothing to reduce"
                throw new BadInputException("--test needs a shell command, not " + (test.isEmpty() ? "an empty string" : "blank space"));
            }
            if (match != null && test == null) {
                throw new BadInputException("--match goes with --test");
            }
            if (backend != null && failsLike == null) {
                throw new BadInputException("--backend goes with --fails-like");
            }
            Pattern pattern = compile(match);
            if (maxTries < 1 || maxSeconds < 1 || testTimeout < 1) {
                throw new BadInputException("--max-tries, --max-seconds and --test-timeout must be at least 1");
            }
            Path target = OutputPaths.newDirectory("--out", out).path(); // checked before the work
            LoadedProgram lp = Load.program(programFile);
            Program program = lp.program();
            List<Diagnostic> invalid = new Validator().validate(program);
            if (!invalid.isEmpty()) {
                throw new BadInputException(programFile + ": not well-formed (" + invalid.getFirst().render() + "); the reducer starts from a valid program");
            }
            Candidate original;
            RunInputs in = RunInputs.of(inputs, null, Map.of(), null, false); // an inputs directory or a golden case
            InputsManifest manifest = in.manifest(program);
            Map<String, Long> params = RunInputs.params(program, manifest, Map.of());
            original = new Candidate(program, in.bind(program, manifest), params);
            Oracle fromReport = failsLike == null ? null : failsLikeOracle(program);
            Path parent = target.getParent();
            Files.createDirectories(parent);
            // this reduce's own directory beside the target: the test command's work, then the result
            try (WriterTemp beside = WriterTemp.directory(target)) {
                Path tmp = beside.path();
                Oracle o = fromReport != null ? fromReport
                        : new Oracle(new CommandOracle(test, pattern, tmp.resolve("work"), testTimeout), RecordOptions.defaults(), "the test command", null);
                if (fromReport == null) {
                    // a test command the shell cannot find or run "fails" every candidate alike: that is bad input, not a failure to keep
                    Verdict first = o.oracle().judge(original);
                    if (first instanceof Verdict.Fails f && f.cause().testCouldNotRun()) {
                        throw new BadInputException("the test command could not be run (" + couldNotRun(f.cause()) + "): " + f.detail());
                    }
                }
                if (fromReport != null) {
                    Verdict first = o.oracle().judge(original);
                    String notLike = first instanceof Verdict.Fails f ? o.report().disagreement(f) : "it passes";
                    if (notLike != null) {
                        printer.nothing(stdout, "the program does not fail like " + failsLike + " (" + o.describe() + "): " + notLike);
                        return ExitCode.CHECK_FAILED;
                    }
                }
                Reducer reducer = new Reducer(heartbeat(o.oracle(), err), Backends.reference(RunOptions.defaults()),
                        new Budget(maxTries, Duration.ofSeconds(maxSeconds)), line -> {
                            err.println("  " + line);
                            err.flush();
                        });
                ReduceResult r;
                try {
                    r = reducer.reduce(original);
                } catch (Reducer.NothingToReduce notFailing) {
                    printer.nothing(stdout, "the program passes " + o.describe() + ": nothing to reduce");
                    return ExitCode.CHECK_FAILED;
                }
                deleteTree(tmp.resolve("work")); // the result alone is moved into place
                Candidate forCase = o.oracle() instanceof FailsLikeOracle f ? f.observable(r.minimal()) : r.minimal();
                String caseProblem = ReducedFiles.write(r.minimal(), forCase, o.record(), tmp);
                beside.moveTo(target); // an empty target (checked above) is replaced
                printer.reduced(stdout, r, o.describe(), caseProblem);
                return ExitCode.OK;
            }
        } catch (BadInputException e) {
            return Reply.badInput(spec.commandLine(), json, e.getMessage(), g -> g.writeStringField("outcome", "bad-input"));
        }
    }

    /** Reads --fails-like's report for {@code program} and the oracle that judges like it. */
    private Oracle failsLikeOracle(Program program) throws BadInputException {
        String hash = new ProgramCodec().hash(program);
        FailureReport failureReport;
        try {
            // a report does not say which budgets its case was recorded with: golden record's default
            failureReport = FailureReport.read(failsLike, hash, MathMode.DEFAULT);
        } catch (FailureReport.ReportException e) {
            throw new BadInputException("--fails-like " + e.getMessage());
        }
        if (backend == null && !failureReport.backendRerunnable()) {
            throw new BadInputException("--fails-like " + failsLike + ": "
                    + (failureReport.backend() == null ? "the report's backend is not named"
                    : "the report read its outputs from files (" + failureReport.backend() + "), which cannot be re-run")
                    + "; name the backend to run with --backend NAME (one of " + String.join(", ", Backends.names()) + ")");
        }
        String name = backend != null ? backend : failureReport.backend();
        Backend b = backends.named(name);
        FailsLikeOracle.Judging j = failureReport.judging();
        RecordOptions record = RecordOptions.defaults().withPolicy(j.policy()).withMathMode(j.mathMode());
        for (var e : j.perOutput().entrySet()) {
            record = record.withPolicy(e.getKey(), e.getValue());
        }
        return new Oracle(new FailsLikeOracle(Backends.reference(RunOptions.defaults()), b, j), record,
                "backend " + name + " under policy " + j.spelling(), failureReport);
    }

    /** {@code oracle}, printing a progress line to {@code err} when {@link #HEARTBEAT_SECONDS} pass between lines. */
    private static FailureOracle heartbeat(FailureOracle oracle, PrintWriter err) {
        long start = System.nanoTime();
        long[] last = {start};
        int[] tries = {0};
        return c -> {
            Verdict v = oracle.judge(c);
            tries[0]++;
            long now = System.nanoTime();
            if (now - last[0] >= HEARTBEAT_SECONDS * 1_000_000_000L) {
                last[0] = now;
                err.printf(java.util.Locale.ROOT, "  ... %d tries in %.0f s%n", tries[0], (now - start) / 1e9);
                err.flush();
            }
            return v;
        };
    }

    private static Pattern compile(String regex) throws BadInputException {
        try {
            return regex == null ? null : Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw new BadInputException("--match is not a regular expression: " + e.getDescription());
        }
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> s = Files.walk(root)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // best effort: the temporary directory is hidden and named after the target
        } catch (RuntimeException ignored) {
            // the same
        }
    }
}
