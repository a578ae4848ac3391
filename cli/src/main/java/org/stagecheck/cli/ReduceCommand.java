package org.stagecheck.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Stream;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.reduce.Budget;
import org.stagecheck.reduce.Candidate;
import org.stagecheck.reduce.CandidateFiles;
import org.stagecheck.reduce.CommandOracle;
import org.stagecheck.reduce.ReduceResult;
import org.stagecheck.reduce.Reducer;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.validate.Validator;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.Npy;
import org.stagecheck.tensor.npy.TensorFileException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code stagecheck reduce}: shrink a failing program, keeping the same failure (docs/pass-testing.md, "Reducing"). */
@Command(name = "reduce", mixinStandardHelpOptions = true,
        description = {"Shrink a program that fails a test command to a small one that fails the same way.",
                "The test command runs through sh -c in a directory holding the candidate (program.json, inputs.json,",
                "tensors/), with STAGECHECK_PROGRAM and STAGECHECK_INPUTS set; exit 0 means it passes. The failure kept is",
                "the exit status, plus the first text matching --match. Writes OUT/program.json, OUT/inputs.json and",
                "OUT/tensors/ (run: stagecheck run OUT/program.json --inputs OUT). Exit 0 reduced, 1 the program does",
                "not fail the test, 2 bad input."})
final class ReduceCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "PROGRAM", description = "program file (.json)")
    Path programFile;

    @Option(names = "--inputs", paramLabel = "DIR", required = true, description = "directory of bound tensors (.npy) and inputs.json")
    Path inputs;

    @Option(names = "--test", paramLabel = "CMD", required = true, description = "shell command: exit 0 when the candidate passes")
    String test;

    @Option(names = "--match", paramLabel = "REGEX", description = "the failure must also print the same first match of REGEX")
    String match;

    @Option(names = "--out", paramLabel = "DIR", required = true, description = "new or empty directory for the minimal program and its inputs")
    Path out;

    @Option(names = "--max-tries", paramLabel = "N", defaultValue = "2000", description = "test runs at most (default 2000)")
    int maxTries;

    @Option(names = "--max-seconds", paramLabel = "S", defaultValue = "600", description = "wall-clock limit (default 600)")
    long maxSeconds;

    @Option(names = "--test-timeout", paramLabel = "S", defaultValue = "120", description = "one test run at most (default 120); longer is a 'timeout' failure")
    long testTimeout;

    @Option(names = "--json", description = "print one JSON document instead of text")
    boolean json;

    @Override
    public Integer call() throws IOException {
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            Pattern pattern = compile(match);
            if (maxTries < 1 || maxSeconds < 1 || testTimeout < 1) {
                throw new BadInputException("--max-tries, --max-seconds and --test-timeout must be at least 1");
            }
            Path target = emptyTarget(out);
            LoadedProgram lp = LoadedProgram.read(programFile);
            Program program = lp.program();
            List<Diagnostic> invalid = new Validator().validate(program);
            if (!invalid.isEmpty()) {
                throw new BadInputException(programFile + ": not well-formed (" + invalid.getFirst().render() + "); the reducer starts from a valid program");
            }
            InputsManifest manifest = InputsManifest.readOrEmpty(inputs);
            Candidate original = new Candidate(program, bind(program, manifest), params(program, manifest));
            Path parent = target.getParent();
            Files.createDirectories(parent);
            Path tmp = Files.createTempDirectory(parent, "." + target.getFileName() + ".tmp");
            try {
                CommandOracle oracle = new CommandOracle(test, pattern, tmp.resolve("work"), testTimeout);
                Reducer reducer = new Reducer(oracle, new Interpreter(RunOptions.defaults()),
                        new Budget(maxTries, Duration.ofSeconds(maxSeconds)), line -> {
                            if (!json) {
                                stdout.println("  " + line);
                                stdout.flush();
                            }
                        });
                ReduceResult r;
                try {
                    r = reducer.reduce(original);
                } catch (Reducer.NothingToReduce notFailing) {
                    report(stdout, null, "the program passes the test command: nothing to reduce");
                    return ExitCode.CHECK_FAILED;
                }
                Path result = Files.createDirectories(tmp.resolve("result"));
                CandidateFiles.write(r.minimal(), result);
                if (Files.exists(target)) {
                    Files.delete(target); // empty, checked above
                }
                Files.move(result, target, StandardCopyOption.ATOMIC_MOVE);
                report(stdout, r, null);
                return ExitCode.OK;
            } finally {
                deleteTree(tmp);
            }
        } catch (BadInputException e) {
            if (json) {
                Json.print(stdout, g -> {
                    g.writeStartObject();
                    g.writeStringField("command", "reduce");
                    g.writeStringField("outcome", "bad-input");
                    g.writeStringField("error", e.getMessage());
                    g.writeEndObject();
                });
            } else {
                err.println("error: " + e.getMessage());
                err.flush();
            }
            return ExitCode.BAD_INPUT;
        }
    }

    private static Pattern compile(String regex) throws BadInputException {
        try {
            return regex == null ? null : Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw new BadInputException("--match is not a regular expression: " + e.getDescription());
        }
    }

    private static Path emptyTarget(Path dir) throws BadInputException, IOException {
        Path target = dir.toAbsolutePath().normalize();
        if (Files.exists(target)) {
            if (!Files.isDirectory(target)) {
                throw new BadInputException(target + " exists and is not a directory");
            }
            try (Stream<Path> s = Files.list(target)) {
                if (s.findAny().isPresent()) {
                    throw new BadInputException(target + " is not empty (refusing to overwrite; remove it or choose another)");
                }
            }
        }
        return target;
    }

    private Map<String, Tensor> bind(Program program, InputsManifest manifest) throws BadInputException {
        Map<String, Tensor> bound = new LinkedHashMap<>();
        List<String> missing = new ArrayList<>();
        for (TensorDecl t : program.tensors()) {
            Path file = manifest.tensors().get(t.name());
            if (file == null) {
                file = inputs.resolve(t.name() + ".npy").normalize();
                if (!file.startsWith(inputs.normalize())) {
                    file = null;
                }
            }
            if (file != null && Files.isRegularFile(file)) {
                Tensor v;
                try {
                    v = Npy.read(file);
                } catch (TensorFileException e) {
                    throw new BadInputException(e.getMessage());
                }
                if (v.dtype() != t.dtype() || !v.shape().equals(t.shape())) {
                    throw new BadInputException(file + " holds " + v.dtype() + v.shape() + " but tensor '" + t.name() + "' is " + t.dtype() + t.shape());
                }
                bound.put(t.name(), v);
            } else if (t.role().isBoundBeforeRun()) {
                missing.add(t.name());
            }
        }
        if (!missing.isEmpty()) {
            throw new BadInputException("missing input file(s) in " + inputs + " for " + String.join(", ", missing));
        }
        return bound;
    }

    private static Map<String, Long> params(Program program, InputsManifest manifest) throws BadInputException {
        Map<String, Long> values = new LinkedHashMap<>();
        for (Param p : program.params()) {
            Long v = manifest.params().get(p.name());
            if (v == null || v < p.min() || v > p.max()) {
                throw new BadInputException("parameter " + p.name() + " needs a value in [" + p.min() + ", " + p.max() + "] in inputs.json");
            }
            values.put(p.name(), v);
        }
        return values;
    }

    private void report(PrintWriter o, ReduceResult r, String nothing) {
        if (json) {
            Json.print(o, g -> {
                g.writeStartObject();
                g.writeStringField("command", "reduce");
                g.writeStringField("outcome", r == null ? "not-failing" : "reduced");
                if (r == null) {
                    g.writeStringField("message", nothing);
                } else {
                    g.writeStringField("failure", r.failure().signature());
                    g.writeStringField("detail", r.failure().detail());
                    g.writeObjectFieldStart("before");
                    g.writeNumberField("stages", r.original().size().stages());
                    g.writeNumberField("elements", r.original().size().elements());
                    g.writeEndObject();
                    g.writeObjectFieldStart("after");
                    g.writeNumberField("stages", r.minimal().size().stages());
                    g.writeNumberField("elements", r.minimal().size().elements());
                    g.writeEndObject();
                    g.writeNumberField("tries", r.tries());
                    g.writeNumberField("accepted", r.accepted());
                    g.writeNumberField("refusedByValidator", r.invalid());
                    g.writeNumberField("failedDifferently", r.failedDifferently());
                    g.writeNumberField("passed", r.passed());
                    g.writeNumberField("millis", r.millis());
                    g.writeBooleanField("budgetExhausted", r.budgetExhausted());
                    g.writeStringField("program", out.toAbsolutePath().normalize().resolve("program.json").toString());
                    g.writeStringField("inputs", out.toAbsolutePath().normalize().toString());
                }
                g.writeEndObject();
            });
            return;
        }
        if (r == null) {
            o.println(nothing);
        } else {
            o.println(r.summary());
            o.println("  " + out.resolve("program.json") + "  (run: stagecheck run " + out.resolve("program.json") + " --inputs " + out + " --out OUT)");
        }
        o.flush();
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
