package org.stagecheck.spec.diag;

import java.util.List;
import java.util.Objects;
import org.stagecheck.spec.validate.NameRules;

/**
 * One finding about a program: a stable {@code code} (the obligation or rule that failed, e.g.
 * {@code MATMUL_SHAPE} or {@code UNREDUCED_SHARD}), where it is, and one sentence saying what is
 * wrong. Shared by the validator, the interpreter's runtime faults and the certificate checker.
 *
 * @param code       stable, upper-snake-case name of the rule; tests and CI scripts match on it
 * @param stageIndex index of the stage in the program's list, or -1 when not about a stage
 * @param stageId    the stage's id, or null
 * @param field      JSON pointer of the offending value, relative to the program root
 *                   (e.g. {@code /stages/3/kind/op/bias}), or null
 * @param buffer     the buffer concerned, or null
 * @param message    one full sentence
 * @param trail      for flow-dependent findings, the stages (as {@code #index id: what}) by which
 *                   the offending value reached this point, oldest first; empty otherwise
 */
public record Diagnostic(String code, int stageIndex, String stageId, String field, String buffer,
                         String message, List<String> trail) {
    public Diagnostic {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
        trail = List.copyOf(trail);
    }

    /** A finding about stage {@code index}. */
    public static Diagnostic atStage(String code, int index, String stageId, String field, String buffer, String message) {
        return new Diagnostic(code, index, stageId, field, buffer, message, List.of());
    }

    /** A finding about a declaration or the program as a whole. */
    public static Diagnostic atField(String code, String field, String message) {
        return new Diagnostic(code, -1, null, field, null, message, List.of());
    }

    public Diagnostic withTrail(List<String> newTrail) {
        return new Diagnostic(code, stageIndex, stageId, field, buffer, message, newTrail);
    }

    /** {@code CODE stage #3 'mm0' field /stages/3/kind/op/bias buffer 'b': message}. */
    public String render() {
        StringBuilder sb = new StringBuilder(code);
        if (stageIndex >= 0) {
            sb.append(" stage #").append(stageIndex);
            if (stageId != null) {
                sb.append(' ').append(shown(stageId));
            }
        }
        if (field != null) {
            sb.append(" at ").append(field);
        }
        if (buffer != null) {
            sb.append(" buffer ").append(shown(buffer));
        }
        sb.append(": ").append(message);
        for (String step : trail) {
            sb.append("\n    via ").append(step);
        }
        return sb.toString();
    }

    /**
     * {@code name} in quotes; a name the validator refuses (a newline, another control character,
     * thousands of characters) escaped and shortened, so that a finding stays one readable line.
     */
    private static String shown(String name) {
        return NameRules.problem(name) == null ? "'" + name + "'" : NameRules.quote(name);
    }
}
