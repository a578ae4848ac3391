package org.stagecheck.cli;

/** Input the command cannot use (exit code 2); the message is shown as it is, one line. */
public final class BadInputException extends Exception {
    public BadInputException(String message) {
        super(message);
    }

    /** {@code FILE:LINE:COL: what} where the position is known, {@code FILE: what} otherwise. */
    static BadInputException of(java.nio.file.Path file, org.stagecheck.spec.json.JsonFormatException e) {
        return new BadInputException(e.messageIn(file));
    }
}
