package org.stagecheck.golden;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.stagecheck.tensor.compare.Comparison;

/**
 * The outcome of checking one golden case.
 *
 * @param name     the case's directory name
 * @param dir      the case directory
 * @param status   PASS, FAIL (a mismatch or a backend fault), STALE (the program no longer hashes
 *                 to the recorded hash; nothing compared), PROGRAM_DIFFERS (the program under test,
 *                 or the one whose run wrote the actual files, is not the one the case was recorded
 *                 for; nothing compared) or BAD_INPUT (the case or the actual files cannot be used)
 * @param message  why it did not pass, or null
 * @param outputs  one comparison per expected output (empty unless compared)
 * @param warnings the case's recorded warnings (integer results a conforming backend may compute differently)
 * @param backend  what produced the actual values, for people: a backend's name or {@code files DIR}
 * @param programHash the hash of the program the case was recorded for (its manifest's), or null
 *                 when the case could not be read; reports carry it so that a report is matched
 *                 to its program ({@code reduce --fails-like})
 * @param actuals  whether a backend ran (so that a reader can run it again) or files or tensors
 *                 were read; null when not said
 * @param time     how long checking the case took (reading it, running the backend or opening the
 *                 files, comparing), or null when not measured
 */
public record CaseResult(String name, Path dir, Status status, String message, List<OutputResult> outputs,
                         List<String> warnings, String backend, String programHash, Actuals.Kind actuals, Duration time) {
    public CaseResult {
        outputs = List.copyOf(outputs);
        warnings = List.copyOf(warnings);
    }

    /** A result whose checking was not timed. */
    public CaseResult(String name, Path dir, Status status, String message, List<OutputResult> outputs,
                      List<String> warnings, String backend, String programHash, Actuals.Kind actuals) {
        this(name, dir, status, message, outputs, warnings, backend, programHash, actuals, null);
    }

    /** A result that does not say what kind of source produced the values. */
    public CaseResult(String name, Path dir, Status status, String message, List<OutputResult> outputs,
                      List<String> warnings, String backend, String programHash) {
        this(name, dir, status, message, outputs, warnings, backend, programHash, null);
    }

    /** This result, saying that {@code kind} of source produced its values. */
    public CaseResult from(Actuals.Kind kind) {
        return new CaseResult(name, dir, status, message, outputs, warnings, backend, programHash, kind, time);
    }

    /** This result, saying that checking it took {@code took}. */
    public CaseResult took(Duration took) {
        return new CaseResult(name, dir, status, message, outputs, warnings, backend, programHash, actuals, took);
    }

    /** A result that names no program hash. */
    public CaseResult(String name, Path dir, Status status, String message, List<OutputResult> outputs,
                      List<String> warnings, String backend) {
        this(name, dir, status, message, outputs, warnings, backend, null);
    }

    public enum Status { PASS, FAIL, STALE, PROGRAM_DIFFERS, BAD_INPUT }

    /**
     * One output's comparison.
     *
     * @param errorMap the error as a matrix for a heat map (outputs of rank 2 or more), or null
     * @param time     how long the comparison took (its files read included), or null when not measured
     */
    public record OutputResult(String tensor, Comparison comparison, org.stagecheck.tensor.compare.ErrorMap errorMap, Duration time) {
        /** A comparison that was not timed. */
        public OutputResult(String tensor, Comparison comparison, org.stagecheck.tensor.compare.ErrorMap errorMap) {
            this(tensor, comparison, errorMap, null);
        }
    }

    public boolean passed() {
        return status == Status.PASS;
    }

    /**
     * The command-line exit code of a set of results: 2 if any is bad input, else 1 if any failed,
     * is stale or was checked against another program, else 0.
     */
    public static int exitCode(List<CaseResult> results) {
        boolean bad = results.stream().anyMatch(r -> r.status() == Status.BAD_INPUT);
        boolean failed = results.stream().anyMatch(r -> r.status() == Status.FAIL || r.status() == Status.STALE
                || r.status() == Status.PROGRAM_DIFFERS);
        return bad ? 2 : failed ? 1 : 0;
    }

    static CaseResult bad(Path dir, String backend, GoldenException e) {
        return new CaseResult(dir.getFileName() == null ? dir.toString() : dir.getFileName().toString(), dir, Status.BAD_INPUT,
                e.getMessage(), List.of(), List.of(), backend);
    }
}
