package org.stagecheck.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.stagecheck.backend.Validation;
import org.stagecheck.golden.Golden;
import org.stagecheck.golden.GoldenException;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Program;

/**
 * What {@code cuda check} runs besides the conformance suite, read and validated before anything
 * is compiled: every example program ({@code DIR/*.json}) and the golden cases it checks. A file
 * that is not a valid program, a missing case or a stale one is bad input.
 *
 * @param examples the example programs, by file name order
 * @param cases    the golden cases, in {@link #CASES} order; the first is the graph and bench subject
 */
record CudaCheckInputs(List<Example> examples, List<GoldenCase> cases) {
    /** The golden cases checked, eager and with graphs: the tiny model's decode step, on one chip and split over two. */
    static final List<String> CASES = List.of("tiny-decode", "tiny-decode-tp2");

    /** An example program and the file it came from. */
    record Example(String name, Program program) {}

    /** A golden case directory and what it was recorded from. */
    record GoldenCase(String name, Path dir, Golden.Recorded recorded) {}

    CudaCheckInputs {
        examples = List.copyOf(examples);
        cases = List.copyOf(cases);
    }

    /** The tiny decode step on one chip: graph mode's fall-backs and the benchmark run it. */
    GoldenCase decode() {
        return cases.getFirst();
    }

    static CudaCheckInputs read(Path examplesDir, Path casesDir) throws BadInputException {
        if (!Files.isDirectory(examplesDir)) {
            throw new BadInputException("--examples " + examplesDir + ": no such directory");
        }
        if (!Files.isDirectory(casesDir)) {
            throw new BadInputException("--cases " + casesDir + ": no such directory");
        }
        List<Path> files;
        try (Stream<Path> s = Files.list(examplesDir)) {
            files = s.filter(p -> p.getFileName().toString().endsWith(".json")).sorted().toList();
        } catch (IOException e) {
            throw new BadInputException("--examples " + examplesDir + ": cannot list it: " + e.getMessage());
        }
        if (files.isEmpty()) {
            throw new BadInputException("--examples " + examplesDir + ": no .json programs in it");
        }
        List<Example> examples = new ArrayList<>();
        for (Path f : files) {
            Program p = Load.program(f).program();
            valid(p, f.toString());
            examples.add(new Example(f.getFileName().toString().replaceFirst("\\.json$", ""), p));
        }
        List<GoldenCase> cases = new ArrayList<>();
        for (String name : CASES) {
            Path dir = casesDir.resolve(name);
            if (!Files.isDirectory(dir)) {
                throw new BadInputException("--cases " + casesDir + ": no case '" + name + "' in it (cuda check needs " + String.join(" and ", CASES) + ")");
            }
            try {
                Golden.Recorded r = Golden.recorded(dir);
                valid(r.program(), dir.toString());
                cases.add(new GoldenCase(name, dir, r));
            } catch (GoldenException e) {
                throw new BadInputException(e.getMessage());
            }
        }
        return new CudaCheckInputs(examples, cases);
    }

    private static void valid(Program p, String where) throws BadInputException {
        List<Diagnostic> findings = Validation.findings(p);
        if (!findings.isEmpty()) {
            throw new BadInputException(where + ": not a valid program: " + findings.getFirst().render());
        }
    }
}
