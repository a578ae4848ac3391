package org.stagecheck.cli;

/** Input the command cannot use (exit code 2); the message is shown as it is, one line. */
public final class BadInputException extends Exception {
    public BadInputException(String message) {
        super(message);
    }
}
