package org.stagecheck.cli;

import org.stagecheck.tensor.inputs.InputsManifest;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import org.stagecheck.api.LoadedProgram;
import org.stagecheck.golden.Golden;
import org.stagecheck.golden.GoldenException;
import org.stagecheck.golden.RecordOptions;
import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.backend.MathMode;
import org.stagecheck.golden.store.Manifest;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.validate.Validator;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.IoMessages;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code stagecheck golden record}: a golden case from the reference interpreter. */
@Command(name = "record", mixinStandardHelpOptions = true,
        description = {"Run PROGRAM on the reference interpreter and record a golden case into --out: the program, its inputs",
                "and parameters, the expected outputs, their derived tolerances and (with --trace) every stage's outputs.",
                "Inputs as for `stagecheck run`; weights the --inputs manifest references in a checkpoint are recorded as",
                "those references, not copied. Atomic and deterministic; an existing case is replaced only with --update.",
                "Exit 0 recorded, 2 bad input."})
final class GoldenRecordCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ProgramInputOptions source;

    @Option(names = "--trace", description = "also record every stage's outputs")
    boolean trace;

    @Option(names = "--tolerance", paramLabel = "POLICY", description = "policy of every output: exact | ulp N | allclose [RTOL ATOL] | pcc MIN | derived [SCALE] (default derived)")
    String tolerance = "derived";

    @Option(names = "--output-tolerance", paramLabel = "TENSOR=POLICY", description = "policy of one output (repeatable)")
    Map<String, String> outputTolerance = new LinkedHashMap<>();

    @Option(names = "--math", paramLabel = "MODE", description = MathModeOption.DESCRIPTION)
    String math = MathModeOption.DEFAULT;

    @Option(names = "--update", description = "replace the case in --out if there is one")
    boolean update;

    @Option(names = "--out", paramLabel = "CASE", required = true, description = "the case directory to write")
    Path out;

    @Option(names = "--json", description = "print one JSON document instead of text")
    boolean json;

    @Override
    public Integer call() {
        PrintWriter stdout = spec.commandLine().getOut();
        try {
            LoadedProgram lp = Load.program(source.programFile);
            Program program = lp.program();
            // an ill-formed program is named as such before its sizes are judged or its inputs read
            List<Diagnostic> invalid = new Validator().validate(program);
            if (!invalid.isEmpty()) {
                throw new BadInputException("the program is not well-formed (" + invalid.size() + " finding(s), first: "
                        + DiagnosticOutput.text(invalid.getFirst(), lp::locate) + "); nothing was recorded");
            }
            MemoryEstimate.of(program, false, trace).check(Runtime.getRuntime().maxMemory()); // before any tensor is read or allocated
            RunInputs in = RunInputs.of(source.inputs, null, Map.of(), source.seed, false);
            InputsManifest manifest = in.manifest(program);
            Map<String, Long> params = RunInputs.params(program, manifest, source.paramOverrides);
            Map<String, Tensor> bound = in.bind(program, manifest);
            RecordOptions options = RecordOptions.defaults().withPolicy(policy("--tolerance", tolerance)).withTrace(trace)
                    .withMathMode(MathModeOption.parse(math)).withUpdate(update);
            for (var e : outputTolerance.entrySet()) {
                if (program.tensorsByName().get(e.getKey()) == null) {
                    throw new BadInputException("--output-tolerance: the program has no tensor '" + e.getKey() + "'");
                }
                options = options.withPolicy(e.getKey(), policy("--output-tolerance " + e.getKey(), e.getValue()));
            }
            Manifest m = Golden.record(program, bound, in.referenced(program, manifest), params, options, out);
            report(stdout, m);
            return ExitCode.OK;
        } catch (BadInputException | GoldenException e) {
            return Reply.badInput(spec.commandLine(), json, e.getMessage());
        } catch (IOException e) {
            return Reply.badInput(spec.commandLine(), json, "cannot write " + out + ": " + IoMessages.describe(e));
        }
    }

    private static Policy policy(String option, String text) throws BadInputException {
        return PolicyOption.parse(option, text);
    }


    private void report(PrintWriter o, Manifest m) {
        if (json) {
            Json.print(o, g -> {
                g.writeStartObject();
                g.writeStringField("command", "golden record");
                g.writeBooleanField("holds", true);
                g.writeNumberField("exitCode", ExitCode.OK);
                g.writeStringField("case", out.toString());
                g.writeStringField("programHash", m.programHash());
                g.writeArrayFieldStart("outputs");
                for (Manifest.Output x : m.outputs()) {
                    g.writeStartObject();
                    g.writeStringField("tensor", x.tensor());
                    g.writeStringField("file", x.file());
                    g.writeStringField("policy", x.policy().spelling());
                    g.writeEndObject();
                }
                g.writeEndArray();
                g.writeNumberField("traced", m.trace().size());
                if (m.checkpoint() != null) {
                    g.writeStringField("checkpoint", m.checkpoint().dir());
                    g.writeNumberField("referencedInputs", m.checkpoint().tensors().size());
                }
                g.writeArrayFieldStart("warnings");
                for (String w : m.warnings()) {
                    g.writeString(w);
                }
                g.writeEndArray();
                g.writeEndObject();
            });
            return;
        }
        for (Manifest.Output x : m.outputs()) {
            o.println(x.tensor() + "  " + x.dtype() + x.shape() + "  [" + x.policy().spelling() + "]  " + x.file());
        }
        for (String w : m.warnings()) {
            o.println("note: " + w);
        }
        o.println("recorded " + m.outputs().size() + " output(s)" + (m.trace().isEmpty() ? "" : " and " + m.trace().size() + " traced stage output(s)")
                + " into " + out + " (program " + m.programHash() + ")"
                + (m.checkpoint() == null ? "" : "; " + m.checkpoint().tensors().size() + " input(s) referenced in the checkpoint "
                        + m.checkpoint().dir() + ", not copied"));
        o.flush();
    }

}
