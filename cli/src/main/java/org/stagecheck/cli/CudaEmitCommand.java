package org.stagecheck.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.Callable;

import org.stagecheck.cuda.CudaModule;
import org.stagecheck.cuda.CudaSetupException;
import org.stagecheck.cuda.lower.CudaSource;
import org.stagecheck.cuda.lower.Kernel;
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
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "PROGRAM", description = "program file (.json)")
    Path programFile;

    @Option(names = "--out", paramLabel = "DIR", required = true, description = "directory for the source files")
    Path out;

    @Option(names = "--json", description = "print one JSON document instead of text")
    boolean json;

    @Override
    public Integer call() throws IOException {
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            LoadedProgram lp = LoadedProgram.read(programFile);
            Program program = lp.program();
            List<Diagnostic> invalid = new Validator().validate(program);
            if (!invalid.isEmpty()) {
                for (Diagnostic d : invalid) {
                    err.println(DiagnosticOutput.text(d, lp::where));
                }
                err.println(programFile + ": not well-formed; nothing was generated");
                err.flush();
                if (json) {
                    Json.print(stdout, g -> {
                        g.writeStartObject();
                        g.writeStringField("command", "cuda emit");
                        g.writeBooleanField("holds", false);
                        DiagnosticOutput.jsonList(g, "findings", invalid, lp::where);
                        g.writeEndObject();
                    });
                }
                return ExitCode.CHECK_FAILED;
            }
            CudaSource source;
            try {
                source = CudaModule.lower(List.of(program)).source();
            } catch (CudaSetupException e) {
                throw new BadInputException(e.getMessage());
            }
            Files.createDirectories(out);
            StringBuilder index = new StringBuilder("stage\tid\tkernel\telements\n");
            for (Kernel k : source.kernels()) {
                index.append(k.stageIndex()).append('\t').append(k.stageId().replace('\t', ' ').replace('\n', ' '))
                        .append('\t').append(k.name()).append('\t').append(k.threads()).append('\n');
            }
            write(out.resolve("program.cu"), source.text());
            write(out.resolve(CudaSource.HEADER), CudaSource.header());
            write(out.resolve("kernels.tsv"), index.toString());
            long lines = source.text().lines().count();
            if (json) {
                Json.print(stdout, g -> {
                    g.writeStartObject();
                    g.writeStringField("command", "cuda emit");
                    g.writeBooleanField("holds", true);
                    g.writeStringField("program", program.name());
                    g.writeNumberField("stages", program.stages().size());
                    g.writeNumberField("kernels", source.kernels().size());
                    g.writeNumberField("lines", lines);
                    g.writeStringField("source", out.resolve("program.cu").toString());
                    g.writeEndObject();
                });
            } else {
                stdout.println("wrote " + out.resolve("program.cu") + ": " + source.kernels().size() + " kernels for "
                        + program.stages().size() + " stages of " + program.name() + " (" + lines + " lines), with "
                        + CudaSource.HEADER + " and kernels.tsv");
                stdout.flush();
            }
            return ExitCode.OK;
        } catch (BadInputException e) {
            err.println("error: " + e.getMessage());
            err.flush();
            return ExitCode.BAD_INPUT;
        }
    }

    private static void write(Path file, String text) throws IOException {
        Path tmp = Files.createTempFile(file.getParent(), "." + file.getFileName(), ".tmp");
        try {
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
