package org.stagecheck.golden.report;

import java.io.IOException;
import java.util.List;

import com.fasterxml.jackson.core.JsonGenerator;

import org.stagecheck.golden.CaseResult;
import org.stagecheck.tensor.compare.Comparison;

/**
 * The report for machines: writes the cases as fields of an open JSON object. Non-finite
 * numbers are written as strings ({@code "Infinity"}, {@code "-Infinity"}) and undefined ones
 * (NaN) as null.
 */
public final class JsonReport {
    private JsonReport() {
    }

    /** Writes {@code "cases": [...]} and {@code "total": {...}} into the current object. */
    public static void write(JsonGenerator g, List<CaseResult> results) throws IOException {
        g.writeArrayFieldStart("cases");
        for (CaseResult r : results) {
            g.writeStartObject();
            g.writeStringField("name", r.name());
            g.writeStringField("dir", r.dir().toString());
            g.writeStringField("status", r.status().name().toLowerCase(java.util.Locale.ROOT));
            g.writeBooleanField("passed", r.passed());
            g.writeStringField("backend", r.backend());
            if (r.actuals() != null) {
                g.writeStringField("actuals", r.actuals().name().toLowerCase(java.util.Locale.ROOT));
            }
            if (r.programHash() != null) {
                g.writeStringField("programHash", r.programHash());
            }
            if (r.message() != null) {
                g.writeStringField("message", r.message());
            }
            g.writeArrayFieldStart("warnings");
            for (String w : r.warnings()) {
                g.writeString(w);
            }
            g.writeEndArray();
            g.writeArrayFieldStart("outputs");
            for (CaseResult.OutputResult o : r.outputs()) {
                comparison(g, o.tensor(), o.comparison());
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeObjectFieldStart("total");
        g.writeNumberField("cases", results.size());
        for (CaseResult.Status s : CaseResult.Status.values()) {
            g.writeNumberField(s.name().toLowerCase(java.util.Locale.ROOT), results.stream().filter(r -> r.status() == s).count());
        }
        g.writeEndObject();
    }

    private static void comparison(JsonGenerator g, String tensor, Comparison c) throws IOException {
        g.writeStartObject();
        g.writeStringField("tensor", tensor);
        g.writeBooleanField("passed", c.passed());
        g.writeStringField("policy", c.policy().spelling());
        if (c.problem() != null) {
            g.writeStringField("problem", c.problem());
        }
        g.writeStringField("dtype", c.dtype().jsonName());
        g.writeArrayFieldStart("shape");
        for (int d : c.shape().dims()) {
            g.writeNumber(d);
        }
        g.writeEndArray();
        g.writeNumberField("elements", c.elements());
        g.writeNumberField("mismatches", c.mismatches());
        g.writeNumberField("nonFiniteMismatches", c.nonFiniteMismatches());
        worst(g, "maxAbs", c.maxAbs());
        worst(g, "maxRel", c.maxRel());
        g.writeArrayFieldStart("ulpHistogram");
        for (Comparison.UlpBucket u : c.ulpHistogram()) {
            g.writeStartObject();
            g.writeNumberField("low", u.low());
            if (u.high() == Long.MAX_VALUE) {
                g.writeNullField("high");
            } else {
                g.writeNumberField("high", u.high());
            }
            g.writeNumberField("count", u.count());
            g.writeEndObject();
        }
        g.writeEndArray();
        num(g, "pcc", c.pcc());
        Comparison.Minimal m = c.minimal();
        g.writeObjectFieldStart("minimalPassing");
        if (m.ulps() == Long.MAX_VALUE) {
            g.writeNullField("ulp");
        } else {
            g.writeNumberField("ulp", m.ulps());
        }
        num(g, "atol", m.atol());
        num(g, "rtol", m.rtol());
        num(g, "atolAtRtol", m.atolAtRtol());
        num(g, "rtolUsed", m.rtolUsed());
        num(g, "pcc", m.pcc());
        num(g, "derivedScale", m.derivedScale());
        g.writeEndObject();
        g.writeEndObject();
    }

    private static void worst(JsonGenerator g, String field, Comparison.Worst w) throws IOException {
        if (w == null) {
            g.writeNullField(field);
            return;
        }
        g.writeObjectFieldStart(field);
        g.writeNumberField("flatIndex", w.flatIndex());
        g.writeArrayFieldStart("index");
        for (long i : w.index()) {
            g.writeNumber(i);
        }
        g.writeEndArray();
        num(g, "expected", w.expected());
        num(g, "actual", w.actual());
        num(g, "absError", w.absError());
        num(g, "relError", w.relError());
        if (w.ulps() == Long.MAX_VALUE) {
            g.writeNullField("ulps");
        } else {
            g.writeNumberField("ulps", w.ulps());
        }
        g.writeEndObject();
    }

    static void num(JsonGenerator g, String field, double v) throws IOException {
        if (Double.isNaN(v)) {
            g.writeNullField(field);
        } else if (Double.isInfinite(v)) {
            g.writeStringField(field, v > 0 ? "Infinity" : "-Infinity");
        } else {
            g.writeNumberField(field, v);
        }
    }
}
