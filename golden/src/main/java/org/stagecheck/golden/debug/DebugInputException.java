package org.stagecheck.golden.debug;

/** Input that cannot be debugged: an unreadable trace, one of another program, a reference that faults. */
public final class DebugInputException extends Exception {
    public DebugInputException(String message) {
        super(message);
    }
}
