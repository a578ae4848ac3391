package org.stagecheck.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

import org.stagecheck.backend.Backend;
import org.stagecheck.golden.Actuals;
import org.stagecheck.golden.CaseResult;
import org.stagecheck.golden.CheckOptions;
import org.stagecheck.golden.Golden;
import org.stagecheck.golden.GoldenException;
import org.stagecheck.golden.Shard;
import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.golden.report.HtmlReport;
import org.stagecheck.golden.report.JsonReport;
import org.stagecheck.golden.report.JunitReport;
import org.stagecheck.golden.report.TextReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code stagecheck golden check}: compare a backend's outputs with golden cases. */
@Command(name = "check", mixinStandardHelpOptions = true,
        description = {"Check golden cases: run each case's program on --backend (default interp), or read the outputs a",
                "backend wrote as .npy from --actual DIR (DIR/<tensor>.npy; with several cases DIR/<case>/<tensor>.npy),",
                "and compare each output under its recorded policy, or under --policy P for every output.",
                "A directory of cases is a suite, checked in parallel; --shard K/N (or Bazel's TEST_TOTAL_SHARDS and",
                "TEST_SHARD_INDEX) checks one of N disjoint parts of it.",
                "Exit 0 all pass, 1 any mismatch, stale case or case of another program, 2 bad input."})
final class GoldenCheckCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "CASE_OR_DIR", description = "case directories or suites (directories of cases)")
    List<Path> paths = new ArrayList<>();

    @Option(names = "--actual", paramLabel = "DIR", description = "compare the .npy files in DIR instead of running a backend")
    Path actual;

    @Option(names = "--backend", paramLabel = "NAME", description = "the backend to run: interp (default), cuda, cuda-emu or cuda-fake")
    String backend;

    @Option(names = "--policy", paramLabel = "P", description = "judge every output by P instead of its recorded policy:"
            + " exact | 'ulp N' | 'allclose [RTOL ATOL]' | 'pcc MIN' | 'derived [SCALE]' (derived scales the case's recorded"
            + " tolerances; an integer output is then judged exactly)")
    String policyText;

    @Option(names = "--program", paramLabel = "P", description = "the program under test: a case recorded for another program"
            + " (its hash differs from P's) fails as PROGRAM_DIFFERS instead of being compared")
    Path program;

    @Option(names = "--shard", paramLabel = "K/N", description = "check only shard K of N (K from 1 to N): the cases at positions"
            + " K-1, K-1+N, ... of the suite's sorted case paths; without it, Bazel's TEST_TOTAL_SHARDS and TEST_SHARD_INDEX"
            + " (from 0) are used when set")
    String shardText;

    @Option(names = "--json", description = "print one JSON document instead of text")
    boolean json;

    @Option(names = "--junit", paramLabel = "FILE", description = "also write a JUnit XML report (each compared output a test, with times)")
    Path junit;

    @Option(names = "--html", paramLabel = "FILE", description = "also write a self-contained HTML report with error heat maps")
    Path html;

    @Option(names = "--threads", paramLabel = "N", description = "cases checked at once (default: the number of cores)")
    Integer threads;

    @Override
    public Integer call() {
        PrintWriter stdout = spec.commandLine().getOut();
        List<CaseResult> results;
        Policy policy;
        Shard.Selection shard = null;
        try {
            policy = policyText == null ? null : PolicyOption.parse("--policy", policyText);
            ShardOption sharding = ShardOption.resolve(shardText, System.getenv());
            CheckOptions options = CheckOptions.defaults().withPolicy(policy);
            if (program != null) {
                options = options.withProgram(Load.program(program).program());
            }
            if (actual != null && backend != null) {
                throw new BadInputException("give --actual DIR or --backend NAME, not both");
            }
            if (threads != null && threads < 1) {
                throw new BadInputException("--threads must be at least 1");
            }
            String name = backend == null ? "interp" : backend;
            Backends.named(name);
            // report paths are checked before any case runs
            OutputPaths.OutputFile junitOut = junit == null ? null : OutputPaths.file("--junit", junit);
            OutputPaths.OutputFile htmlOut = html == null ? null : OutputPaths.file("--html", html);
            List<Path> suite = Golden.expand(paths);
            List<Path> cases = suite;
            if (sharding.shard() != null) {
                shard = sharding.shard().select(suite);
                cases = shard.cases();
                sharding.touchStatusFile();
            }
            List<Path> read = new ArrayList<>(suite);
            read.add(actual);
            if (program != null) {
                read.add(program);
            }
            for (OutputPaths.OutputFile report : java.util.Arrays.asList(junitOut, htmlOut)) {
                if (report != null) {
                    InputOverlap.refuse(report, List.of(), read);
                }
            }
            InputOverlap.distinct(junitOut, htmlOut);
            results = new ArrayList<>();
            int n = threads != null ? threads : Runtime.getRuntime().availableProcessors();
            // a daemon ticker (when stderr is a terminal): a failure below ends the command, and it with it
            var progress = ProgressLines.to(spec.commandLine().getErr(), "golden check", json);
            progress.phase("checking " + cases.size() + (cases.size() == 1 ? " case" : " cases"), 0);
            if (actual != null) {
                if (!Files.isDirectory(actual)) {
                    throw new BadInputException("--actual " + actual + ": no such directory");
                }
                for (Path c : cases) {
                    // one case given: DIR holds its outputs; a suite (sharded or not): DIR/<case>/
                    Path dir = suite.size() == 1 ? actual : actual.resolve(c.toAbsolutePath().normalize().getFileName().toString());
                    results.add(Golden.check(c, new Actuals.FromDirectory(dir), options));
                }
            } else {
                Supplier<Actuals> fresh = () -> new Actuals.FromBackend(backendOrThrow(name));
                results.addAll(Golden.checkAll(cases, fresh, n, options));
            }
            progress.close();
            if (junitOut != null) {
                junitOut.write(JunitReport.of(results).getBytes(StandardCharsets.UTF_8));
            }
            if (htmlOut != null) {
                htmlOut.write(HtmlReport.of(results).getBytes(StandardCharsets.UTF_8));
            }
        } catch (BadInputException | GoldenException e) {
            return Reply.badInput(spec.commandLine(), json, e.getMessage(), g -> {
                g.writeArrayFieldStart("cases");
                g.writeEndArray();
            });
        }
        int code = CaseResult.exitCode(results);
        Shard.Selection shardRan = shard;
        if (json) {
            Json.print(stdout, g -> {
                g.writeStartObject();
                g.writeStringField("command", "golden check");
                g.writeBooleanField("holds", code == ExitCode.OK);
                g.writeStringField("status", code == ExitCode.OK ? "passed" : code == ExitCode.CHECK_FAILED ? "failed" : "bad-input");
                g.writeNumberField("exitCode", code);
                // the policy given at check time, or null: each output's recorded one (each output's "policy" is the one applied)
                if (policy == null) {
                    g.writeNullField("policyOverride");
                } else {
                    g.writeStringField("policyOverride", policy.spelling());
                }
                if (code == ExitCode.BAD_INPUT) {
                    g.writeStringField("error", badInput(results));
                }
                if (shardRan != null) {
                    g.writeObjectFieldStart("shard");
                    g.writeNumberField("number", shardRan.shard().number());
                    g.writeNumberField("count", shardRan.shard().count());
                    g.writeNumberField("cases", shardRan.cases().size());
                    g.writeNumberField("suiteCases", shardRan.suiteCases());
                    g.writeEndObject();
                }
                JsonReport.write(g, results);
                g.writeEndObject();
            });
        } else {
            stdout.print(TextReport.of(results, shard));
            stdout.flush();
        }
        if (code == ExitCode.BAD_INPUT) {
            spec.commandLine().getErr().println("error: " + Reply.oneLine(badInput(results)));
            spec.commandLine().getErr().flush();
        }
        return code;
    }

    /** The cases that were bad input, each with its reason, in one line. */
    private static String badInput(List<CaseResult> results) {
        return String.join("; ", results.stream().filter(r -> r.status() == CaseResult.Status.BAD_INPUT)
                .map(r -> r.name() + ": " + r.message()).toList());
    }

    private static Backend backendOrThrow(String name) {
        try {
            return Backends.named(name);
        } catch (BadInputException e) {
            throw new IllegalStateException("checked before the cases ran", e);
        }
    }

}
