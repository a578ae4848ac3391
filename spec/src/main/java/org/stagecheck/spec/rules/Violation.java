package org.stagecheck.spec.rules;

import java.util.Objects;

/**
 * One broken {@link Rule} of one stage: {@code field} is the JSON pointer below the stage
 * ({@code outs/0}, {@code kind/op/spill}), {@code buffer} the buffer concerned or null.
 */
public record Violation(Rule rule, String field, String buffer, String message) {
    public Violation {
        Objects.requireNonNull(rule, "rule");
        Objects.requireNonNull(field, "field");
        Objects.requireNonNull(message, "message");
    }

    /** The rule's code. */
    public String code() {
        return rule.code();
    }

    @Override
    public String toString() {
        return rule.code() + " at " + field + ": " + message;
    }
}
