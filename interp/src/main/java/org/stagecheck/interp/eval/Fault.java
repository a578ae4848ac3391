package org.stagecheck.interp.eval;

import java.util.List;

import org.stagecheck.backend.FaultCode;
import org.stagecheck.spec.rules.Rule;
import org.stagecheck.spec.rules.Violation;

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

    /** A broken rule of the language, under its one code (the validator's, which the seam's list shares). */
    public Fault(Rule rule, String field, String buffer, String message) {
        this(FaultCode.of(rule), field, buffer, message);
    }

    public Fault(Rule rule, String message) {
        this(FaultCode.of(rule), null, null, message);
    }

    /** Throws the first of {@code violations} (the language's rules) as a fault; nothing when there are none. */
    static void throwFirst(List<Violation> violations) throws Fault {
        if (!violations.isEmpty()) {
            Violation v = violations.getFirst();
            throw new Fault(v.rule(), v.field(), v.buffer(), v.message() + ".");
        }
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
