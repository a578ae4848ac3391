package org.stagecheck.interp;

import org.stagecheck.backend.FaultCode;

/**
 * A stage that cannot be evaluated on the values a {@link Stepper} holds (brief, "Reference
 * semantics": the run's faults, one stage at a time): the fault's code, where in the stage it
 * is, and a full sentence. A run reports the same fault as a diagnostic naming the stage.
 */
public final class StageFault extends Exception {
    private final FaultCode code;
    private final String field;
    private final String buffer;

    /** A fault of {@code code}; {@code field} (a JSON pointer below the stage) and {@code buffer} may be null. */
    public StageFault(FaultCode code, String field, String buffer, String message) {
        super(message, null, false, false);
        this.code = code;
        this.field = field;
        this.buffer = buffer;
    }

    /**
     * A stage its caller declines to evaluate on these values (a tool that judges this kind of
     * stage otherwise): no runtime fault of the evaluator, so {@link #code()} is null.
     */
    public StageFault(String message) {
        this(null, null, null, message);
    }

    /** The fault's code; null when the caller declined the stage (see {@link #StageFault(String)}). */
    public FaultCode code() {
        return code;
    }

    /** The JSON pointer below the stage ({@code kind/pattern/origin/0}), or null. */
    public String field() {
        return field;
    }

    /** The buffer concerned, or null. */
    public String buffer() {
        return buffer;
    }
}
