package org.stagecheck.verifier.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.verifier.Code;
import org.stagecheck.verifier.VerifyReport;

/**
 * A report as SARIF 2.1.0, so code-review tools show the findings (docs/verifier.md, "SARIF").
 * One run whose tool driver {@code stagecheck-verifier} lists every {@link Code} as a rule; one
 * result per diagnostic, level {@code error}, located in the program file by a logical location
 * (the JSON pointer, e.g. {@code /stages/6/kind/op/expr}) since program files are JSON and their
 * line numbers are not kept in the IR. The trail becomes a code flow whose thread-flow locations
 * are the stages it names, so a viewer can step along the partial's path.
 */
public final class SarifWriter {
    public static final String SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";

    /** {@code programUri}: the program file as the user named it (nullable). */
    public byte[] write(VerifyReport report, String programUri) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeStringField("$schema", SCHEMA);
            g.writeStringField("version", "2.1.0");
            g.writeArrayFieldStart("runs");
            g.writeStartObject();
            tool(g);
            g.writeArrayFieldStart("results");
            for (Diagnostic d : report.diagnostics()) {
                result(g, d, programUri);
            }
            g.writeEndArray();
            g.writeEndObject();
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.write('\n');
        return out.toByteArray();
    }

    private static void tool(JsonGenerator g) throws IOException {
        g.writeObjectFieldStart("tool");
        g.writeObjectFieldStart("driver");
        g.writeStringField("name", "stagecheck-verifier");
        g.writeStringField("informationUri", "https://example.invalid/stagecheck/docs/verifier.md");
        g.writeArrayFieldStart("rules");
        for (Code c : Code.values()) {
            g.writeStartObject();
            g.writeStringField("id", c.name());
            g.writeObjectFieldStart("shortDescription");
            g.writeStringField("text", c.rule());
            g.writeEndObject();
            g.writeObjectFieldStart("properties");
            g.writeStringField("obligation", c.obligation().jsonName());
            g.writeEndObject();
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
        g.writeEndObject();
    }

    private static void result(JsonGenerator g, Diagnostic d, String programUri) throws IOException {
        g.writeStartObject();
        g.writeStringField("ruleId", d.code());
        Code c = Code.of(d.code());
        if (c != null) {
            g.writeNumberField("ruleIndex", c.ordinal());
        }
        g.writeStringField("level", "error");
        g.writeObjectFieldStart("message");
        g.writeStringField("text", d.message());
        g.writeEndObject();
        g.writeArrayFieldStart("locations");
        location(g, programUri, d.field(), d.stageId() == null ? null : "stage #" + d.stageIndex() + " " + d.stageId());
        g.writeEndArray();
        if (!d.trail().isEmpty()) {
            g.writeArrayFieldStart("codeFlows");
            g.writeStartObject();
            g.writeArrayFieldStart("threadFlows");
            g.writeStartObject();
            g.writeArrayFieldStart("locations");
            for (String step : d.trail()) {
                g.writeStartObject();
                g.writeFieldName("location");
                g.writeStartObject();
                g.writeObjectFieldStart("message");
                g.writeStringField("text", step);
                g.writeEndObject();
                String pointer = stagePointer(step);
                if (pointer != null) {
                    g.writeArrayFieldStart("logicalLocations");
                    g.writeStartObject();
                    g.writeStringField("fullyQualifiedName", pointer);
                    g.writeEndObject();
                    g.writeEndArray();
                }
                g.writeEndObject();
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
            g.writeEndArray();
            g.writeEndObject();
            g.writeEndArray();
        }
        g.writeObjectFieldStart("properties");
        if (d.buffer() != null) {
            g.writeStringField("buffer", d.buffer());
        }
        if (d.stageIndex() >= 0) {
            g.writeNumberField("stageIndex", d.stageIndex());
        }
        g.writeEndObject();
        g.writeEndObject();
    }

    private static void location(JsonGenerator g, String uri, String pointer, String name) throws IOException {
        g.writeStartObject();
        if (uri != null) {
            g.writeObjectFieldStart("physicalLocation");
            g.writeObjectFieldStart("artifactLocation");
            g.writeStringField("uri", uri);
            g.writeEndObject();
            g.writeEndObject();
        }
        if (pointer != null || name != null) {
            g.writeArrayFieldStart("logicalLocations");
            g.writeStartObject();
            if (name != null) {
                g.writeStringField("name", name);
            }
            if (pointer != null) {
                g.writeStringField("fullyQualifiedName", pointer);
            }
            g.writeStringField("kind", "element");
            g.writeEndObject();
            g.writeEndArray();
        }
        g.writeEndObject();
    }

    /** {@code "#4 mm.1: ..."} to {@code /stages/4}; null for trail lines that name no stage. */
    private static String stagePointer(String step) {
        if (!step.startsWith("#")) {
            return null;
        }
        int end = 1;
        while (end < step.length() && Character.isDigit(step.charAt(end))) {
            end++;
        }
        return end > 1 ? "/stages/" + step.substring(1, end) : null;
    }
}
