package org.stagecheck.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.util.List;
import org.stagecheck.api.PlacedDiagnostic;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.diag.DiagnosticJson;
import org.stagecheck.spec.json.Pos;
import org.stagecheck.spec.json.SourceLocator;
import org.stagecheck.spec.json.SourcePosition;

/** Renders diagnostics as text for people and as JSON objects for machines. */
final class DiagnosticOutput {
    private DiagnosticOutput() {}

    /** {@code FILE:LINE:COL: CODE stage #i 'id' at /ptr buffer 'b': message}. */
    static String text(Diagnostic d, SourceLocator locator) {
        return placed(d, locator).render();
    }

    private static PlacedDiagnostic placed(Diagnostic d, SourceLocator locator) {
        return new PlacedDiagnostic(d, locator.locate(d.field()));
    }

    static void json(JsonGenerator g, PlacedDiagnostic p) throws IOException {
        Diagnostic d = p.diagnostic();
        g.writeStartObject();
        g.writeStringField("code", d.code());
        DiagnosticJson.writeLocation(g, d);
        SourcePosition where = p.position();
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

    static void jsonList(JsonGenerator g, String field, List<Diagnostic> ds, SourceLocator locator) throws IOException {
        jsonPlaced(g, field, ds.stream().map(d -> placed(d, locator)).toList());
    }

    static void jsonPlaced(JsonGenerator g, String field, List<PlacedDiagnostic> ds) throws IOException {
        g.writeArrayFieldStart(field);
        for (PlacedDiagnostic d : ds) {
            json(g, d);
        }
        g.writeEndArray();
    }
}
