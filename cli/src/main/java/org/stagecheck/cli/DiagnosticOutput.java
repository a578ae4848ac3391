package org.stagecheck.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.util.List;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.diag.DiagnosticJson;
import org.stagecheck.spec.json.Pos;

/** Renders diagnostics as text for people and as JSON objects for machines. */
final class DiagnosticOutput {
    private DiagnosticOutput() {}

    /** {@code FILE:LINE:COL: CODE stage #i 'id' at /ptr buffer 'b': message}. */
    static String text(Diagnostic d, Locator locator) {
        return locator.locate(d.field()).prefix() + ": " + d.render();
    }

    static void json(JsonGenerator g, Diagnostic d, Locator locator) throws IOException {
        g.writeStartObject();
        g.writeStringField("code", d.code());
        DiagnosticJson.writeLocation(g, d);
        Locator.Where where = locator.locate(d.field());
        g.writeStringField("file", where.file());
        Pos pos = where.pos();
        if (pos.known()) {
            g.writeNumberField("line", pos.line());
            g.writeNumberField("column", pos.column());
        }
        g.writeStringField("message", d.message());
        if (!d.trail().isEmpty()) {
            g.writeArrayFieldStart("trail");
            for (String t : d.trail()) {
                g.writeString(t);
            }
            g.writeEndArray();
        }
        g.writeEndObject();
    }

    static void jsonList(JsonGenerator g, String field, List<Diagnostic> ds, Locator locator) throws IOException {
        g.writeArrayFieldStart(field);
        for (Diagnostic d : ds) {
            json(g, d, locator);
        }
        g.writeEndArray();
    }
}
