package org.stagecheck.spec.diag;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;

/**
 * The fields that place a {@link Diagnostic} in its program, as every JSON report spells them:
 * {@code stageIndex}, {@code stageId}, {@code field} (a JSON pointer) and {@code buffer}, each
 * only when known. One writer, so that the command line's and the verifier's reports agree.
 */
public final class DiagnosticJson {
    private DiagnosticJson() {
    }

    /** Writes the known location fields of {@code d} into the object {@code g} is writing. */
    public static void writeLocation(JsonGenerator g, Diagnostic d) throws IOException {
        if (d.stageIndex() >= 0) {
            g.writeNumberField("stageIndex", d.stageIndex());
        }
        if (d.stageId() != null) {
            g.writeStringField("stageId", d.stageId());
        }
        if (d.field() != null) {
            g.writeStringField("field", d.field());
        }
        if (d.buffer() != null) {
            g.writeStringField("buffer", d.buffer());
        }
    }
}
