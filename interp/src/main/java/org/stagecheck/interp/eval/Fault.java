package org.stagecheck.interp.eval;

import org.stagecheck.backend.FaultCode;

/**
 * A runtime fault inside one stage (brief, "Reference semantics": faults are diagnostics, not
 * Java exceptions). Thrown only inside the evaluator and turned into a
 * {@link org.stagecheck.spec.diag.Diagnostic} naming the stage by the interpreter.
 */
public final class Fault extends Exception {
    private final FaultCode code;
    private final String field;
    private final String buffer;

    public Fault(FaultCode code, String field, String buffer, String message) {
        super(message, null, false, false);
        this.code = code;
        this.field = field;
        this.buffer = buffer;
    }

    public Fault(FaultCode code, String message) {
        this(code, null, null, message);
    }

    public FaultCode code() {
        return code;
    }

    /** JSON pointer below the stage ({@code kind/pattern/origin/0}), or null. */
    public String field() {
        return field;
    }

    public String buffer() {
        return buffer;
    }
}
