package org.stagecheck.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
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
import org.stagecheck.tensor.io.WriterTemp;
import org.stagecheck.tensor.npy.IoMessages;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code stagecheck cuda emit}: writes the generated source for a person to read:
 * {@code OUT/program.cu} (a kernel per stage, each headed by its stage's index and id),
 * {@code OUT/sc_rt.h} (the runtime header both compilers use) and {@code OUT/kernels.tsv} (stage
 * index, stage id, kernel name, elements). The directory is written whole (into a temporary
 * beside it, renamed into place), so a failed or killed emit leaves the earlier directory, none, or
 * the new one, never one file of each; an existing directory is replaced only when it holds
 * nothing but these three files.
 */
@Command(name = "emit", mixinStandardHelpOptions = true,
        description = {"Write the CUDA C source the backend generates for a program (program.cu, sc_rt.h, kernels.tsv)."})
final class CudaEmitCommand implements Callable<Integer> {
    private static final String SOURCE = "program.cu";
    private static final String INDEX = "kernels.tsv";
    private static final List<String> FILES = List.of(SOURCE, CudaSource.HEADER, INDEX);
    /** How many foreign files a refusal names. */

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
            for (String name : FILES) {
                dir.checkFile(name);
            }
            refuseForeign(dir.path());
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
            StringBuilder index = new StringBuilder("stage\tid\tkernel\telements\n");
            for (Kernel k : source.kernels()) {
                index.append(k.stageIndex()).append('\t').append(k.stageId().replace('\t', ' ').replace('\n', ' '))
                        .append('\t').append(k.name()).append('\t').append(k.threads()).append('\n');
            }
            writeWhole(dir.path(), List.of(source.text(), CudaSource.header(), index.toString()));
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

    /**
     * Refuses an existing {@code dir} holding anything but an earlier emit's files (a killed
     * write's hidden leftovers aside): it is replaced as a whole, and another file in it (a run's
     * output, the program itself) would be lost or mixed with the generated source.
     */
    private static void refuseForeign(Path dir) throws BadInputException {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try {
            List<String> foreign = EarlierRunOutput.foreign(dir, Set.copyOf(FILES));
            if (!foreign.isEmpty()) {
                throw new BadInputException("--out " + dir + " holds files cuda emit does not write (" + EarlierRunOutput.listed(foreign)
                        + "); emit replaces its output directory as a whole and never deletes other files: choose another directory");
            }
        } catch (IOException e) {
            throw new BadInputException("--out " + dir + ": cannot read it: " + IoMessages.describe(e));
        }
    }

    /** Writes {@link #FILES} with {@code texts} into a temporary directory beside {@code target}, then renames it into place. */
    private static void writeWhole(Path target, List<String> texts) throws BadInputException {
        Path real = target;
        try {
            if (Files.isSymbolicLink(real)) {
                real = real.toRealPath(); // the directory the link leads to is replaced, never the link
            }
            Files.createDirectories(real.getParent());
            try (WriterTemp tmp = WriterTemp.directory(real)) {
                for (int i = 0; i < FILES.size(); i++) {
                    Path file = tmp.path().resolve(FILES.get(i));
                    new OutputPaths.OutputFile("--out", file).write(texts.get(i).getBytes(StandardCharsets.UTF_8));
                }
                tmp.moveTo(real);
            }
        } catch (IOException e) {
            throw new BadInputException("--out " + target + ": cannot write: " + IoMessages.describe(e));
        }
    }
}
