package org.stagecheck.api;

import java.util.Objects;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.json.SourcePosition;

/**
 * A diagnostic with the place in its source file of the value it is about.
 *
 * <pre>{@code
 * for (PlacedDiagnostic d : Stagecheck.load(Path.of("chain.json")).validate().diagnostics()) {
 *     System.out.println(d.render()); // chain.json:21:5: SHAPE_MISMATCH stage #2 'silu' at /stages/2/outs/0: ...
 *     int line = d.position().pos().line();
 * }
 * }</pre>
 *
 * @param diagnostic the finding: its stable code, stage, field, message
 * @param position   where {@link Diagnostic#field()} lies ({@link SourcePosition#UNKNOWN} for a program built in memory)
 */
public record PlacedDiagnostic(Diagnostic diagnostic, SourcePosition position) {
    public PlacedDiagnostic {
        Objects.requireNonNull(diagnostic, "diagnostic");
        Objects.requireNonNull(position, "position");
    }

    /** The diagnostic's stable code, e.g. {@code BROADCAST}. */
    public String code() {
        return diagnostic.code();
    }

    /** {@code FILE:LINE:COL: CODE stage #i 'id' at /ptr: message}, as {@code stagecheck validate} prints it. */
    public String render() {
        return position.prefix() + ": " + diagnostic.render();
    }
}
