package org.stagecheck.cuda.compile;

/** A compiler that is missing or that rejected the generated source; the message says which and why. */
public final class CompileException extends Exception {
    public CompileException(String message) {
        super(message, null, false, false);
    }
}
