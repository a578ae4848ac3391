package org.stagecheck.verifier.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.diag.DiagnosticJson;
import org.stagecheck.spec.json.SourcePosition;
import org.stagecheck.verifier.Code;
import org.stagecheck.verifier.ObligationResult;
import org.stagecheck.verifier.VerifyReport;

/**
 * A report as JSON for machines (docs/verifier.md, "JSON report"), the one document both a Java
 * caller and {@code stagecheck verify --json} get:
 * <pre>
 * {"format": "stagecheck-verify-report", "version": 2, "command": "verify",
 *  "program": "split.json", "holds": false, "status": "not-verified", "exitCode": 1,
 *  "obligations": [{"obligation": "unreduced-shard", "status": "violated", "claimed": true,
 *                   "findings": 1, "note": "..."}, ...],
 *  "diagnostics": [{"code": "PARTIAL_PLUS_FULL", "obligation": "unreduced-shard",
 *                   "stageIndex": 6, "stageId": "add_bias.1", "field": "/stages/6/kind/op/expr",
 *                   "buffer": "bias.1", "file": "split.json", "line": 88, "column": 17,
 *                   "message": "...", "trail": ["#4 mm.1: ...", ...]}, ...]}
 * </pre>
 * Absent values ({@code stageIndex} -1, null id, field or buffer; the program's file, a
 * diagnostic's file, line and column when the {@link ReportSources} do not know them) are omitted.
 * {@code exitCode} is what {@code stagecheck verify} exits with for this report (0 verified, 1 not).
 * Field order is fixed, so equal reports give equal bytes.
 *
 * <pre>{@code
 * VerifyReport report = new Verifier().verify(program, certificate, Parent.none());
 * String json = new String(new ReportJson().write(report), StandardCharsets.UTF_8);
 * }</pre>
 */
public final class ReportJson {
    public static final String FORMAT = "stagecheck-verify-report";
    public static final int VERSION = 2;

    /** The document without files: no program name, no positions. */
    public byte[] write(VerifyReport report) {
        return write(report, ReportSources.NONE);
    }

    /** The document with the program's name and each diagnostic's file, line and column from {@code sources}. */
    public byte[] write(VerifyReport report, ReportSources sources) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            write(report, sources, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** Writes the document to {@code out}, which stays open. */
    public void write(VerifyReport report, ReportSources sources, OutputStream out) throws IOException {
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeStringField("format", FORMAT);
            g.writeNumberField("version", VERSION);
            g.writeStringField("command", "verify");
            if (sources.program() != null) {
                g.writeStringField("program", sources.program());
            }
            g.writeBooleanField("holds", report.holds());
            g.writeStringField("status", report.holds() ? "verified" : "not-verified");
            g.writeNumberField("exitCode", report.holds() ? 0 : 1);
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
                writeDiagnostic(g, d, sources.locate(d.field()));
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        out.write('\n');
    }

    static void writeDiagnostic(JsonGenerator g, Diagnostic d, SourcePosition where) throws IOException {
        g.writeStartObject();
        g.writeStringField("code", d.code());
        Code code = Code.of(d.code());
        if (code != null) {
            g.writeStringField("obligation", code.obligation().jsonName());
        }
        DiagnosticJson.writeLocation(g, d);
        if (where.file() != null) {
            g.writeStringField("file", where.file());
        }
        if (where.pos().known()) {
            g.writeNumberField("line", where.pos().line());
            g.writeNumberField("column", where.pos().column());
        }
        g.writeStringField("message", d.message());
        g.writeArrayFieldStart("trail");
        for (String step : d.trail()) {
            g.writeString(step);
        }
        g.writeEndArray();
        g.writeEndObject();
    }
}
