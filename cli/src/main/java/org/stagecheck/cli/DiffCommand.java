package org.stagecheck.cli;

import org.stagecheck.tensor.inputs.InputsManifest;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import org.stagecheck.api.LoadedProgram;
import org.stagecheck.golden.Actuals;
import org.stagecheck.golden.debug.CutBisect;
import org.stagecheck.golden.debug.DebugInputException;
import org.stagecheck.golden.debug.DiffReports;
import org.stagecheck.golden.debug.DiffResult;
import org.stagecheck.golden.debug.DiffText;
import org.stagecheck.golden.debug.Judge;
import org.stagecheck.golden.debug.Replay;
import org.stagecheck.golden.debug.StageTrace;
import org.stagecheck.golden.debug.TraceDiff;
import org.stagecheck.backend.MathMode;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.validate.Validator;
import org.stagecheck.tensor.Tensor;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code stagecheck diff}: where a backend's run first departs from the reference, and whether it is rounding or a bug. */
@Command(name = "diff", mixinStandardHelpOptions = true,
        description = {"Name the first stage where a backend's run departs from the reference beyond",
                "what rounding explains (each stage judged on the inputs the backend fed it;",
                "--policy exact: the first bit of difference), with a verdict per stage and,",
                "for that stage, a three-way comparison against float64: within rounding,",
                "beyond its bound, or ill-conditioned.",
                "  diff REF_DIR BACKEND_DIR --program P    two traces as 'run --trace --out DIR' writes them (the backend's",
                "                                          may hold only some stages)",
                "  diff --replay --program P --inputs DIR --actual DIR",
                "                                          the backend's recorded values (any stages, or only its outputs)",
                "                                          substituted into the reference run",
                "  diff --replay --program P --inputs DIR --backend NAME",
                "                                          bisect by running the backend on prefixes of the program",
                "Exit 0 everything agrees, 1 a divergence was found, 2 bad input."})
final class DiffCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..2", paramLabel = "TRACE_DIR", description = "the reference's and the backend's trace directories")
    List<Path> traces = new ArrayList<>();

    @Option(names = "--program", paramLabel = "FILE", required = true, description = "the program both sides ran")
    Path programFile;

    @Option(names = "--replay", description = "localise by replay through the reference instead of comparing two traces")
    boolean replay;

    @Option(names = "--actual", paramLabel = "DIR", description = "with --replay: what the backend wrote (DIR/<tensor>.npy, DIR/trace/...)")
    Path actual;

    @Option(names = "--backend", paramLabel = "NAME", description = "with --replay: the backend to bisect, run on prefixes of the program: interp, cuda, cuda-emu or cuda-fake")
    String backend;

    @Option(names = "--inputs", paramLabel = "DIR", description = "the run's bound tensors and inputs.json (parameters), or a golden case")
    Path inputs;

    @Option(names = "--random", paramLabel = "SEED", description = "with --replay: bound tensors not in --inputs generated from this seed")
    Long seed;

    @Option(names = "--param", paramLabel = "NAME=VALUE", description = "bind a program parameter (repeatable; overrides inputs.json)")
    Map<String, Long> paramOverrides = new LinkedHashMap<>();

    @Option(names = "--policy", paramLabel = "POLICY", defaultValue = "stage-derived",
            description = "how stage values are judged: stage-derived (default: beyond the rounding of the stage's own evaluation on "
                    + "the inputs the backend fed it; 'stage-derived F' allows F times that bound), or against the reference's value: "
                    + "exact, 'ulp N', 'allclose [RTOL ATOL]', 'pcc MIN'")
    String policyText;

    @Option(names = "--math", paramLabel = "MODE", description = MathModeOption.DESCRIPTION)
    String math = MathModeOption.DEFAULT;

    @Option(names = "--json", description = "print one JSON document instead of text")
    boolean json;

    @Option(names = "--html", paramLabel = "FILE", description = "also write an HTML page (and FILE's .divergent.html: the golden report of the divergent stage)")
    Path html;

    @Override
    public Integer call() {
        PrintWriter stdout = spec.commandLine().getOut();
        DiffResult r;
        String backendName;
        Actuals.Kind actualsKind;
        String programHash;
        try {
            Judge judge = parseJudge();
            // report paths are checked before any work, as every output path is
            OutputPaths.OutputFile htmlOut = html == null ? null : OutputPaths.file("--html", html);
            OutputPaths.OutputFile divergentOut = html == null ? null : OutputPaths.file("--html", divergentPage());
            if (htmlOut != null) {
                List<Path> inputDirs = new ArrayList<>(traces);
                inputDirs.add(inputs);
                inputDirs.add(actual);
                InputOverlap.refuse(htmlOut, List.of(programFile), inputDirs);
                InputOverlap.refuse(divergentOut, List.of(programFile), inputDirs);
            }
            MathMode mode = MathModeOption.parse(math);
            LoadedProgram lp = Load.program(programFile);
            Program program = lp.program();
            programHash = new org.stagecheck.spec.json.ProgramCodec().hash(program);
            List<Diagnostic> invalid = new Validator().validate(program);
            if (!invalid.isEmpty()) {
                throw new BadInputException(programFile + ": not well-formed: " + DiagnosticOutput.text(invalid.get(0), lp::locate));
            }
            MemoryEstimate.of(program, false, true).check(Runtime.getRuntime().maxMemory()); // both sides' stage values are held
            RunInputs in = RunInputs.of(inputs, null, Map.of(), seed, false);
            InputsManifest manifest = in.manifest(program);
            if (!replay) {
                if (traces.size() != 2) {
                    throw new BadInputException("give two trace directories (reference, backend), or --replay");
                }
                if (actual != null || backend != null || seed != null) {
                    throw new BadInputException("--actual, --backend and --random go with --replay");
                }
                Map<String, Long> params = new LinkedHashMap<>(manifest.params());
                params.putAll(paramOverrides);
                // two traces need no parameter value (the stage-derived judgement asks for them), but none the program lacks
                List<org.stagecheck.backend.BindingProblem> unknown = org.stagecheck.backend.ParamCheck.problems(program, params).stream()
                        .filter(p -> p.code() == org.stagecheck.backend.BindingProblem.Code.PARAM_UNKNOWN).toList();
                if (!unknown.isEmpty()) {
                    throw new BadInputException(programFile + ": " + org.stagecheck.backend.Bindings.describe(unknown) + RunInputs.paramHints(program, unknown));
                }
                StageTrace reference = StageTrace.read(traces.get(0), program);
                StageTrace backendTrace = StageTrace.read(traces.get(1), program);
                if (backendTrace.isEmpty()) {
                    throw new BadInputException(traces.get(1) + ": holds neither output tensors of the program nor a trace");
                }
                backendName = "files " + traces.get(1);
                actualsKind = Actuals.Kind.FILES;
                r = TraceDiff.diff(program, reference, backendTrace, judge, params, mode);
            } else {
                if (!traces.isEmpty()) {
                    throw new BadInputException("--replay takes no trace directories; give the backend's with --actual DIR");
                }
                if ((actual == null) == (backend == null)) {
                    throw new BadInputException("--replay needs --actual DIR (what the backend wrote) or --backend NAME (to bisect), one of them");
                }
                Map<String, Long> params = RunInputs.params(program, manifest, paramOverrides);
                Map<String, Tensor> bound = in.bind(program, manifest);
                if (actual != null) {
                    StageTrace recorded = StageTrace.read(actual, program);
                    if (recorded.isEmpty()) {
                        throw new BadInputException(actual + ": holds neither output tensors of the program nor a trace");
                    }
                    backendName = "files " + actual;
                    actualsKind = Actuals.Kind.FILES;
                    r = Replay.replay(program, bound, params, recorded, judge, mode);
                } else {
                    backendName = backend;
                    actualsKind = Actuals.Kind.BACKEND;
                    r = CutBisect.bisect(program, bound, params, Backends.named(backend), judge, mode);
                }
            }
            writeHtml(r, backendName, htmlOut, divergentOut);
        } catch (BadInputException | DebugInputException e) {
            return Reply.badInput(spec.commandLine(), json, e.getMessage());
        }
        DiffResult result = r;
        String name = backendName;
        Actuals.Kind kind = actualsKind;
        String hash = programHash;
        if (json) {
            Json.print(stdout, g -> {
                g.writeStartObject();
                g.writeStringField("command", "diff");
                g.writeBooleanField("holds", result.agrees());
                g.writeNumberField("exitCode", result.exitCode());
                DiffReports.json(g, result, name, kind, hash);
                g.writeEndObject();
            });
        } else {
            stdout.print(DiffText.of(result));
            stdout.flush();
        }
        return result.exitCode();
    }

    private Judge parseJudge() throws BadInputException {
        try {
            return Judge.parse(policyText);
        } catch (IllegalArgumentException e) {
            throw new BadInputException("--policy: " + e.getMessage());
        }
    }

    /** {@code FILE}'s sibling {@code .divergent.html}: the golden report of the divergent stage. */
    private Path divergentPage() {
        String stem = html.getFileName().toString().replaceFirst("\\.html?$", "");
        return html.resolveSibling(stem + ".divergent.html");
    }

    private static void writeHtml(DiffResult r, String backendName, OutputPaths.OutputFile htmlOut, OutputPaths.OutputFile divergentOut)
            throws BadInputException {
        if (htmlOut == null) {
            return;
        }
        String page = DiffReports.divergentHtml(r, backendName);
        if (page != null) {
            divergentOut.write(page.getBytes(StandardCharsets.UTF_8));
        }
        htmlOut.write(DiffReports.html(r, page == null ? null : divergentOut.path().getFileName().toString()).getBytes(StandardCharsets.UTF_8));
    }

}
