package org.stagecheck.cuda.lower;

import java.util.List;

import org.stagecheck.spec.rules.Violation;

/**
 * A program the lowering cannot translate. Programs are validated before lowering, so this
 * signals a defect of the lowering (or an unvalidated program) and becomes a diagnostic naming the
 * stage, never a crash.
 */
public final class LoweringException extends RuntimeException {
    public LoweringException(String message) {
        super(message, null, false, false);
    }

    /** Throws the first broken rule of the language, under its code; nothing when none is broken. */
    static void throwFirst(List<Violation> violations) {
        if (!violations.isEmpty()) {
            Violation v = violations.getFirst();
            throw new LoweringException(v.code() + ": " + v.message());
        }
    }
}
