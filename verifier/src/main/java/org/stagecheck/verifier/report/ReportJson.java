package org.stagecheck.verifier.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.diag.DiagnosticJson;
import org.stagecheck.verifier.Code;
import org.stagecheck.verifier.ObligationResult;
import org.stagecheck.verifier.VerifyReport;

/**
 * A report as JSON for machines (docs/verifier.md, "JSON report"):
 * <pre>
 * {"format": "stagecheck-verify-report", "version": 1, "holds": false,
 *  "obligations": [{"obligation": "unreduced-shard", "status": "violated", "claimed": true,
 *                   "findings": 1, "note": "..."}, ...],
 *  "diagnostics": [{"code": "PARTIAL_PLUS_FULL", "obligation": "unreduced-shard",
 *                   "stageIndex": 6, "stageId": "add_bias.1", "field": "/stages/6/kind/op/expr",
 *                   "buffer": "bias.1", "message": "...", "trail": ["#4 mm.1: ...", ...]}, ...]}
 * </pre>
 * Absent values ({@code stageIndex} -1, null id, field or buffer) are omitted. Field order is fixed,
 * so equal reports give equal bytes.
 */
public final class ReportJson {
    public static final String FORMAT = "stagecheck-verify-report";
    public static final int VERSION = 1;

    public byte[] write(VerifyReport report) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            write(report, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    public void write(VerifyReport report, OutputStream out) throws IOException {
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeStringField("format", FORMAT);
            g.writeNumberField("version", VERSION);
            g.writeBooleanField("holds", report.holds());
            g.writeArrayFieldStart("obligations");
            for (ObligationResult o : report.obligations()) {
                g.writeStartObject();
                g.writeStringField("obligation", o.obligation().jsonName());
                g.writeStringField("status", o.status().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
                g.writeBooleanField("claimed", o.claimed());
                g.writeNumberField("findings", o.findings());
                g.writeStringField("note", o.note());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("diagnostics");
            for (Diagnostic d : report.diagnostics()) {
                writeDiagnostic(g, d);
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        out.write('\n');
    }

    static void writeDiagnostic(JsonGenerator g, Diagnostic d) throws IOException {
        g.writeStartObject();
        g.writeStringField("code", d.code());
        Code code = Code.of(d.code());
        if (code != null) {
            g.writeStringField("obligation", code.obligation().jsonName());
        }
        DiagnosticJson.writeLocation(g, d);
        g.writeStringField("message", d.message());
        g.writeArrayFieldStart("trail");
        for (String step : d.trail()) {
            g.writeString(step);
        }
        g.writeEndArray();
        g.writeEndObject();
    }
}
