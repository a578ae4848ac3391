package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.author.Author;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.golden.Actuals;
import org.stagecheck.golden.Golden;
import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.golden.debug.DiffReports;
import org.stagecheck.golden.debug.DiffResult;
import org.stagecheck.golden.debug.StageTrace;
import org.stagecheck.golden.debug.TraceDiff;
import org.stagecheck.backend.MathMode;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.json.JsonReader;
import org.stagecheck.spec.json.ProgramCodec;
import org.stagecheck.tensor.Tensor;
import picocli.CommandLine;

/**
 * {@code stagecheck reduce --fails-like REPORT}: a diff report of a backend with a slice off by
 * one, on the tiny decode step, reduced to a few stages failing at the same kind of stage, with a
 * golden case; and every bad report or output path refused with exit 2 and nothing written.
 */
@Tag("slow")
class ReduceFailsLikeCommandTest {
    private static final String BUGGY = "buggy-slice";

    @TempDir
    static Path dir;
    private static Path program;
    private static Path inputs;
    private static Path report;

    /** The interpreter on the program as a code generator that reads every Slice one element further would compile it. */
    static final Backend SLICE_OFF_BY_ONE = new Backend() {
        private final Interpreter interp = new Interpreter(RunOptions.defaults());

        @Override
        public String name() {
            return BUGGY;
        }

        @Override
        public RunResult run(Program p, Map<String, Tensor> bound, Map<String, Long> params, boolean trace) {
            Map<String, BufferDecl> buffers = p.buffersByName();
            List<Stage> stages = new ArrayList<>();
            for (Stage s : p.stages()) {
                if (s.kind() instanceof StageKind.Compute(ComputeOp.Slice sl)) {
                    List<Integer> starts = new ArrayList<>(sl.starts());
                    for (int a = 0; a < starts.size(); a++) {
                        int room = buffers.get(s.ins().getFirst()).shape().dim(a) - buffers.get(s.outs().getFirst()).shape().dim(a);
                        if (room > 0) {
                            starts.set(a, starts.get(a) < room ? starts.get(a) + 1 : starts.get(a) - 1);
                            break;
                        }
                    }
                    s = new Stage(s.id(), s.site(), s.ins(), s.outs(), new StageKind.Compute(new ComputeOp.Slice(starts)));
                }
                stages.add(s);
            }
            return interp.run(p.withStages(stages), bound, params, trace);
        }
    };

    /** Runs {@code reduce} with the buggy backend known by name, as a backend of the command line would be. */
    static CliRunner reduce(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new ReduceCommand(name -> name.equals(BUGGY) ? SLICE_OFF_BY_ONE : Backends.named(name)));
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new CliRunner(code, out.toString(), err.toString());
    }

    @BeforeAll
    static void authorAndReport() throws Exception {
        Path decode = dir.resolve("decode");
        CliRunner a = CliRunner.run("author", "--model", "tiny", "--cut", "decode", "--ctx", "16", "--out", decode.toString());
        assertThat(a.exit()).as(a.err()).isZero();
        program = decode.resolve("program.json");
        inputs = decode;
        // the report diff --json prints for full traces of the buggy backend and the reference
        Program p = new ProgramCodec().read(new JsonReader().read(program));
        AuthorOutcome.Authored au = (AuthorOutcome.Authored) Author.author(ModelSpec.tiny(), Cut.decode(16), AuthorOptions.single());
        Map<String, Tensor> bound = new LinkedHashMap<>(au.weights());
        bound.putAll(au.inputs());
        RunResult ref = new Interpreter(RunOptions.defaults()).run(p, bound, au.params(), true);
        RunResult got = SLICE_OFF_BY_ONE.run(p, bound, au.params(), true);
        DiffResult r = TraceDiff.diff(p, StageTrace.of(p, ref), StageTrace.of(p, got), new Policy.Exact(), au.params(), MathMode.PRECISE);
        report = dir.resolve("diff.json");
        try (OutputStream o = Files.newOutputStream(report); JsonGenerator g = new JsonFactory().createGenerator(o)) {
            g.writeStartObject();
            g.writeStringField("command", "diff");
            g.writeBooleanField("holds", r.agrees());
            g.writeNumberField("exitCode", r.exitCode());
            DiffReports.json(g, r, BUGGY, Actuals.Kind.BACKEND, new ProgramCodec().hash(p));
            g.writeEndObject();
        }
    }

    @Test
    void aDiffReportIsReducedToAFewStagesFailingAtTheSameKindOfStageWithAGoldenCase() throws Exception {
        Path out = dir.resolve("min");
        CliRunner r = reduce(program.toString(), "--inputs", inputs.toString(), "--fails-like", report.toString(), "--out", out.toString(), "--json");
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("\"failure\" : \"diverges at Compute/Slice\"").contains("\"oracle\" : \"backend buggy-slice under policy exact\"");
        assertThat(r.out().strip()).startsWith("{").endsWith("}").doesNotContain("reducing");
        assertThat(r.err()).as("progress lines never with --json").doesNotContain("reducing");
        Program min = new ProgramCodec().read(new JsonReader().read(out.resolve("program.json")));
        assertThat(min.stages()).hasSizeLessThanOrEqualTo(4).anyMatch(s -> s.kind() instanceof StageKind.Compute(ComputeOp.Slice sl));
        // the golden case is the regression test: the buggy backend fails it, the reference passes it
        assertThat(Golden.check(out.resolve("case"), new Actuals.FromBackend(SLICE_OFF_BY_ONE)).passed()).isFalse();
        CliRunner check = CliRunner.run("golden", "check", out.resolve("case").toString());
        assertThat(check.exit()).as(check.out() + check.err()).isZero();
    }

    @Test
    void theReferenceDoesNotFailLikeTheReport() {
        Path out = dir.resolve("none");
        CliRunner r = reduce(program.toString(), "--inputs", inputs.toString(), "--fails-like", report.toString(), "--backend", "interp",
                "--out", out.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(1);
        assertThat(r.out()).contains("the program does not fail like").contains("it passes");
        assertThat(out).doesNotExist();
    }

    @Test
    void badReportsAndOutputsAreExitTwoWithNothingWritten() throws Exception {
        Path garbled = Files.writeString(dir.resolve("garbled.json"), "{\"command\": \"diff\", ");
        Path other = Files.writeString(dir.resolve("other.json"), "{\"command\": \"validate\", \"holds\": false}");
        String stale = Files.readString(report).replaceFirst("\"programHash\" : \"[^\"]+\"|\"programHash\":\"[^\"]+\"", "\"programHash\":\"0000\"");
        Path otherProgram = Files.writeString(dir.resolve("other-program.json"), stale);
        Path noHash = Files.writeString(dir.resolve("no-hash.json"), Files.readString(report).replaceFirst("\"programHash\"", "\"hashOfTheProgram\""));
        // a report of outputs read from files: it says so in "actuals", and its backend is no name to run
        Path files = Files.writeString(dir.resolve("files.json"), Files.readString(report).replace("\"" + BUGGY + "\"", "\"files out/backend\"")
                .replace("\"actuals\":\"backend\"", "\"actuals\":\"files\""));
        Path aFile = Files.writeString(dir.resolve("a-file"), "x");
        record Case(String why, String expected, String... extra) {}
        List<Case> cases = List.of(
                new Case("missing report", "no such file", "--fails-like", dir.resolve("nowhere.json").toString()),
                new Case("garbled report", "not a JSON report", "--fails-like", garbled.toString()),
                new Case("not a report", "not the JSON report of 'golden check' or 'diff'", "--fails-like", other.toString()),
                new Case("another program", "a report for another program", "--fails-like", otherProgram.toString()),
                new Case("no hash", "names no program hash", "--fails-like", noHash.toString()),
                new Case("files backend", "cannot be re-run; name the backend to run with --backend", "--fails-like", files.toString()),
                new Case("unknown backend", "unknown backend 'nope'", "--fails-like", report.toString(), "--backend", "nope"),
                new Case("both oracles", "give --test CMD or --fails-like REPORT, one of them", "--fails-like", report.toString(), "--test", "false"),
                new Case("neither", "give --test CMD or --fails-like REPORT, one of them"));
        for (Case c : cases) {
            Path out = dir.resolve("out-" + c.why().replace(' ', '-'));
            List<String> args = new ArrayList<>(List.of(program.toString(), "--inputs", inputs.toString(), "--out", out.toString()));
            args.addAll(List.of(c.extra()));
            CliRunner r = reduce(args.toArray(String[]::new));
            assertThat(r.exit()).as(c.why() + ": " + r.out() + r.err()).isEqualTo(2);
            assertThat(r.err()).as(c.why()).startsWith("error: ").contains(c.expected());
            assertThat(out).as(c.why() + ": nothing written").doesNotExist();
            CliRunner j = reduce(java.util.stream.Stream.concat(args.stream(), java.util.stream.Stream.of("--json")).toArray(String[]::new));
            assertThat(j.exit()).isEqualTo(2);
            assertThat(j.out()).as(c.why()).contains("\"status\" : \"bad-input\"").contains(c.expected().replace("'", "'"));
        }
        // an output directory that cannot be made (its parent is a file): refused before the work
        CliRunner unwritable = reduce(program.toString(), "--inputs", inputs.toString(), "--fails-like", report.toString(),
                "--out", aFile.resolve("min").toString());
        assertThat(unwritable.exit()).as(unwritable.err()).isEqualTo(2);
        assertThat(unwritable.err()).startsWith("error: --out ");
        assertThat(unwritable.err()).doesNotContain("reducing");
        assertThat(Files.list(dir).filter(p -> p.getFileName().toString().endsWith(OutputPaths.TMP_SUFFIX))).isEmpty();
    }

    /**
     * The reports as the commands print them: the buggy backend's run written in {@code run
     * --trace}'s layout, then {@code golden check --actual DIR --json} and {@code diff REF DIR
     * --json} of it. Both read files, so the backend to re-run is named with --backend.
     */
    @Test
    void reportsPrintedByGoldenCheckAndDiffAreReducedLikeTheirFailure() throws Exception {
        Path e2e = Files.createDirectories(dir.resolve("e2e"));
        Program p = new ProgramCodec().read(new JsonReader().read(program));
        AuthorOutcome.Authored au = (AuthorOutcome.Authored) Author.author(ModelSpec.tiny(), Cut.decode(16), AuthorOptions.single());
        Map<String, Tensor> bound = new LinkedHashMap<>(au.weights());
        bound.putAll(au.inputs());
        Path backendRun = e2e.resolve("backend-run");
        RunOutputs.plan(backendRun, p, true).write(p, SLICE_OFF_BY_ONE.run(p, bound, au.params(), true));
        CliRunner ref = CliRunner.run("run", program.toString(), "--inputs", inputs.toString(), "--trace", "--out", e2e.resolve("ref-run").toString());
        assertThat(ref.exit()).as(ref.err()).isZero();

        CliRunner record = CliRunner.run("golden", "record", program.toString(), "--inputs", inputs.toString(), "--out", e2e.resolve("case").toString());
        assertThat(record.exit()).as(record.err()).isZero();
        CliRunner check = CliRunner.run("golden", "check", e2e.resolve("case").toString(), "--actual", backendRun.toString(), "--json");
        assertThat(check.exit()).as(check.out()).isEqualTo(1);
        assertThat(check.out()).contains("\"programHash\"");
        Path goldenReport = Files.writeString(e2e.resolve("golden-report.json"), check.out());

        CliRunner diff = CliRunner.run("diff", e2e.resolve("ref-run").toString(), backendRun.toString(), "--program", program.toString(),
                "--inputs", inputs.toString(), "--json");
        assertThat(diff.exit()).as(diff.out()).isEqualTo(1);
        assertThat(diff.out()).contains("\"programHash\"").contains("\"backend\" : \"files ");
        Path diffReport = Files.writeString(e2e.resolve("diff-report.json"), diff.out());

        for (Path report : List.of(goldenReport, diffReport)) {
            // the golden check report is reduced from the case itself: its program, and the case as --inputs
            boolean golden = report.equals(goldenReport);
            String prog = golden ? e2e.resolve("case/program.json").toString() : program.toString();
            String in = golden ? e2e.resolve("case").toString() : inputs.toString();
            Path out = e2e.resolve("min-" + report.getFileName().toString().replace(".json", ""));
            CliRunner withoutBackend = reduce(prog, "--inputs", in, "--fails-like", report.toString(), "--out", out.toString());
            assertThat(withoutBackend.exit()).as(withoutBackend.err()).isEqualTo(2);
            assertThat(withoutBackend.err()).contains("cannot be re-run");
            CliRunner r = reduce(prog, "--inputs", in, "--fails-like", report.toString(), "--backend", BUGGY, "--out", out.toString());
            assertThat(r.exit()).as(report + ": " + r.out() + r.err()).isZero();
            assertThat(r.out()).contains("still 'diverges at Compute/Slice'").contains("before: 466 stages");
            Program min = new ProgramCodec().read(new JsonReader().read(out.resolve("program.json")));
            assertThat(min.stages()).as(report.toString()).hasSizeLessThanOrEqualTo(4);
            assertThat(Golden.check(out.resolve("case"), new Actuals.FromBackend(SLICE_OFF_BY_ONE)).passed()).isFalse();
        }
    }
}
