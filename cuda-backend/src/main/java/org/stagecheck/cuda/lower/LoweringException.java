package org.stagecheck.cuda.lower;

/**
 * A program the lowering cannot translate. Programs are validated before lowering, so this
 * signals a defect of the lowering (or an unvalidated program) and becomes a diagnostic naming the
 * stage, never a crash.
 */
public final class LoweringException extends RuntimeException {
    public LoweringException(String message) {
        super(message, null, false, false);
    }
}
