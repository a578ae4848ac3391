package org.stagecheck.reduce;

import java.io.IOException;
import java.nio.file.Path;
import org.stagecheck.golden.Golden;
import org.stagecheck.golden.GoldenException;
import org.stagecheck.golden.RecordOptions;

/**
 * A reduction's result on disk: the minimal program with its inputs ({@link CandidateFiles}:
 * {@code program.json}, {@code inputs.json}, {@code tensors/}) and, in {@code case/}, a golden
 * case recorded from the reference on the minimal program ({@link Golden#record}), so that the
 * failure becomes a regression test: {@code golden check DIR/case --backend NAME} fails until the
 * backend is fixed.
 */
public final class ReducedFiles {
    /** The golden case's directory inside the result directory. */
    public static final String CASE_DIR = "case";

    private ReducedFiles() {}

    /**
     * Writes {@code minimal} and its golden case into the existing, empty directory {@code dir}.
     *
     * @return null when the case was recorded, else why not (the reference faults on the minimal
     *         program, say, when the failure kept was a fault the reference shares); the program
     *         and its inputs are written either way
     */
    public static String write(Candidate minimal, RecordOptions options, Path dir) throws IOException {
        return write(minimal, minimal, options, dir);
    }

    /**
     * As {@link #write(Candidate, RecordOptions, Path)}, recording the case from {@code forCase}:
     * the minimal program made to store what fails ({@link FailsLikeOracle#observable}).
     */
    public static String write(Candidate minimal, Candidate forCase, RecordOptions options, Path dir) throws IOException {
        CandidateFiles.write(minimal, dir);
        try {
            Golden.record(forCase.program(), forCase.bound(), forCase.params(), options.withUpdate(false), dir.resolve(CASE_DIR));
            return null;
        } catch (GoldenException e) {
            return e.getMessage();
        }
    }
}
