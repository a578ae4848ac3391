package org.stagecheck.cli;

/** The exit codes of every command (brief, "The command line"). */
public final class ExitCode {
    /** The check holds. */
    public static final int OK = 0;
    /** A check failed: a validation finding, a verifier violation, a mismatch, a runtime fault. */
    public static final int CHECK_FAILED = 1;
    /** Bad input or usage: unreadable or malformed files, unknown options. */
    public static final int BAD_INPUT = 2;

    private ExitCode() {}

    /** The worse of two outcomes: bad input beats a failed check beats success. */
    public static int worst(int a, int b) {
        return Math.max(a, b);
    }
}
