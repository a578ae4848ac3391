package org.stagecheck.api;

/**
 * Input the library cannot use: a file that is missing, not JSON, or not a program or
 * certificate; a golden case that cannot be written. The message is one line a person can act on,
 * naming the file and, where known, the line and column ({@code chain.json:3:9: ...}); it never
 * carries a parser's stack trace.
 *
 * <pre>{@code
 * try {
 *     LoadedProgram program = Stagecheck.load(Path.of("chain.json"));
 * } catch (StagecheckException e) {
 *     System.err.println("error: " + e.getMessage());
 * }
 * }</pre>
 */
public final class StagecheckException extends Exception {
    public StagecheckException(String message) {
        super(message);
    }

    public StagecheckException(String message, Throwable cause) {
        super(message, cause);
    }
}
