package org.stagecheck.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import org.stagecheck.api.LoadedProgram;
import org.stagecheck.cuda.CudaModule;
import org.stagecheck.cuda.CudaSetupException;
import org.stagecheck.cuda.lower.CudaSource;
import org.stagecheck.cuda.lower.Kernel;
import org.stagecheck.cuda.lower.Kernels;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.validate.Validator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code stagecheck cuda emit}: writes the generated source for a person to read:
 * {@code OUT/program.cu} (a kernel per stage, each headed by its stage's index and id),
 * {@code OUT/sc_rt.h} (the runtime header both compilers use) and {@code OUT/kernels.tsv} (stage
 * index, stage id, kernel name, elements). Each file is written whole or not at all.
 */
@Command(name = "emit", mixinStandardHelpOptions = true,
        description = {"Write the CUDA C source the backend generates for a program (program.cu, sc_rt.h, kernels.tsv)."})
final class CudaEmitCommand implements Callable<Integer> {
    private static final String SOURCE = "program.cu";
    private static final String INDEX = "kernels.tsv";

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "PROGRAM", description = "program file (.json)")
    Path programFile;

    @Option(names = "--out", paramLabel = "DIR", required = true, description = "directory for the source files")
    Path out;

    @Option(names = "--json", description = "print one JSON document instead of text")
    boolean json;

    @Option(names = "--kernels", paramLabel = "MODE", description = KernelsOption.DESCRIPTION)
    String kernels = "exact";

    @Override
    public Integer call() {
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            Kernels mode = KernelsOption.parse(kernels);
            // the output directory and its three files are checked before the work
            OutputPaths.OutputDir dir = OutputPaths.directory("--out", out);
            for (String name : List.of(SOURCE, CudaSource.HEADER, INDEX)) {
                dir.checkFile(name);
            }
            LoadedProgram lp = Load.program(programFile);
            Program program = lp.program();
            List<Diagnostic> invalid = new Validator().validate(program);
            if (!invalid.isEmpty()) {
                for (Diagnostic d : invalid) {
                    err.println(DiagnosticOutput.text(d, lp::locate));
                }
                err.println(programFile + ": not well-formed; nothing was generated");
                err.flush();
                if (json) {
                    Json.print(stdout, g -> {
                        g.writeStartObject();
                        g.writeStringField("command", "cuda emit");
                        g.writeBooleanField("holds", false);
                        g.writeStringField("status", "invalid");
                        g.writeNumberField("exitCode", ExitCode.CHECK_FAILED);
                        DiagnosticOutput.jsonList(g, "findings", invalid, lp::locate);
                        g.writeEndObject();
                    });
                }
                return ExitCode.CHECK_FAILED;
            }
            CudaSource source;
            try {
                source = CudaModule.lower(List.of(program), mode).source();
            } catch (CudaSetupException e) {
                throw new BadInputException(e.getMessage());
            }
            dir.create();
            StringBuilder index = new StringBuilder("stage\tid\tkernel\telements\n");
            for (Kernel k : source.kernels()) {
                index.append(k.stageIndex()).append('\t').append(k.stageId().replace('\t', ' ').replace('\n', ' '))
                        .append('\t').append(k.name()).append('\t').append(k.threads()).append('\n');
            }
            write(dir, SOURCE, source.text());
            write(dir, CudaSource.HEADER, CudaSource.header());
            write(dir, INDEX, index.toString());
            long lines = source.text().lines().count();
            if (json) {
                Json.print(stdout, g -> {
                    g.writeStartObject();
                    g.writeStringField("command", "cuda emit");
                    g.writeBooleanField("holds", true);
                    g.writeStringField("status", "emitted");
                    g.writeNumberField("exitCode", ExitCode.OK);
                    g.writeStringField("program", program.name());
                    g.writeNumberField("stages", program.stages().size());
                    g.writeNumberField("kernels", source.kernels().size());
                    g.writeNumberField("lines", lines);
                    g.writeStringField("source", out.resolve(SOURCE).toString());
                    g.writeEndObject();
                });
            } else {
                stdout.println("wrote " + out.resolve(SOURCE) + ": " + source.kernels().size() + " kernels for "
                        + program.stages().size() + " stages of " + program.name() + " (" + lines + " lines), with "
                        + CudaSource.HEADER + " and kernels.tsv");
                stdout.flush();
            }
            return ExitCode.OK;
        } catch (BadInputException e) {
            return Reply.badInput(spec.commandLine(), json, e.getMessage());
        }
    }

    /** One file of the output, written whole (through a temporary file renamed over it) or not at all. */
    private static void write(OutputPaths.OutputDir dir, String name, String text) throws BadInputException {
        new OutputPaths.OutputFile("--out", dir.path().resolve(name)).write(text.getBytes(StandardCharsets.UTF_8));
    }
}
