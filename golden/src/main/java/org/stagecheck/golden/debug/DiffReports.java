package org.stagecheck.golden.debug;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.core.JsonGenerator;

import org.stagecheck.golden.CaseResult;
import org.stagecheck.tensor.compare.Comparison;
import org.stagecheck.tensor.compare.ErrorMap;
import org.stagecheck.golden.report.HtmlReport;
import org.stagecheck.golden.report.JsonReport;
import org.stagecheck.tensor.Tensor;

/**
 * The machine-readable and HTML forms of a {@link DiffResult}. The divergent stage's outputs are
 * also given as a golden case result ({@link #divergentCase}), so the golden module's JSON and
 * HTML reports (figures, ULP histogram, error heat map) show them.
 */
public final class DiffReports {
    private static final int HEAT_MAP_SIDE = 64;

    private DiffReports() {
    }

    /** The divergent stage's outputs as a golden case result named after the stage, or null when no stage diverges. */
    public static CaseResult divergentCase(DiffResult r, String backendName) {
        DiffResult.StageValues v = r.divergentValues();
        if (v == null || r.divergence() == null) {
            return null;
        }
        List<CaseResult.OutputResult> outs = new ArrayList<>();
        for (int p = 0; p < Math.min(v.reference().size(), v.backend().size()); p++) {
            Tensor bound = v.bounds() == null ? null : v.bounds().get(p);
            Comparison c = StageJudgement.compare(r.judge(), v.reference().get(p), v.backend().get(p), bound);
            ErrorMap m = ErrorMap.of(v.reference().get(p), v.backend().get(p), StageJudgement.policyOf(r.judge()),
                    bound == null ? null : StageJudgement.tolerance(bound), HEAT_MAP_SIDE);
            outs.add(new CaseResult.OutputResult(v.buffers().get(p), c, m));
        }
        boolean passed = outs.stream().allMatch(o -> o.comparison().passed());
        String message = "outputs of stage #" + r.divergence().stageIndex() + " '" + r.divergence().stageId() + "' ("
                + r.divergence().kind() + ")" + (r.threeWay() == null ? "" : ": " + r.threeWay().classification().words());
        return new CaseResult(r.divergence().stageId(), Path.of(r.program()), passed ? CaseResult.Status.PASS : CaseResult.Status.FAIL,
                message, outs, r.threeWay() == null ? List.of() : r.threeWay().warnings(), backendName);
    }

    /** Writes the result's fields into the current JSON object. Non-finite numbers are written as strings. */
    public static void json(JsonGenerator g, DiffResult r, String backendName) throws IOException {
        json(g, r, backendName, null);
    }

    /**
     * As {@link #json(JsonGenerator, DiffResult, String)}, also naming the backend and the hash of
     * the program both sides ran ({@code ProgramCodec.hash}), so that the report can be matched to
     * its program later ({@code reduce --fails-like}).
     */
    public static void json(JsonGenerator g, DiffResult r, String backendName, String programHash) throws IOException {
        json(g, r, backendName, null, programHash);
    }

    /**
     * As {@link #json(JsonGenerator, DiffResult, String, String)}, also saying whether a backend
     * ran or files were read ({@code "actuals"}; omitted when null), so that a reader knows whether
     * the backend can be run again without reading its name.
     */
    public static void json(JsonGenerator g, DiffResult r, String backendName, org.stagecheck.golden.Actuals.Kind actuals, String programHash)
            throws IOException {
        g.writeStringField("mode", r.mode().words());
        g.writeStringField("program", r.program());
        if (programHash != null) {
            g.writeStringField("programHash", programHash);
        }
        g.writeStringField("backend", backendName);
        if (actuals != null) {
            g.writeStringField("actuals", actuals.name().toLowerCase(java.util.Locale.ROOT));
        }
        g.writeStringField("policy", r.judge().spelling());
        g.writeBooleanField("agrees", r.agrees());
        g.writeStringField("headline", DiffText.headline(r));
        Divergence d = r.divergence();
        if (d == null) {
            g.writeNullField("firstDivergentStage");
        } else {
            g.writeObjectFieldStart("firstDivergentStage");
            if (d.stageIndex() >= 0) {
                g.writeNumberField("index", d.stageIndex());
                g.writeStringField("id", d.stageId());
                g.writeStringField("kind", d.kind());
            } else {
                g.writeStringField("tensor", d.tensor());
            }
            g.writeBooleanField("pinned", d.pinned());
            g.writeBooleanField("confirmed", d.confirmed());
            g.writeArrayFieldStart("suspects");
            for (String s : d.suspects()) {
                g.writeString(s);
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        ThreeWay tw = r.threeWay();
        if (tw == null) {
            g.writeNullField("threeWay");
        } else {
            g.writeObjectFieldStart("threeWay");
            g.writeStringField("stage", tw.stageId());
            g.writeStringField("verdict", tw.classification().name().toLowerCase(Locale.ROOT));
            g.writeStringField("words", tw.classification().words());
            g.writeStringField("mathMode", tw.mode().spelling());
            g.writeArrayFieldStart("ports");
            for (ThreeWay.Port p : tw.ports()) {
                g.writeStartObject();
                g.writeStringField("buffer", p.buffer());
                g.writeStringField("dtype", p.dtype().toString());
                num(g, "maxBound", p.maxBound());
                num(g, "referenceMaxError", p.referenceMaxError());
                num(g, "backendMaxError", p.backendMaxError());
                num(g, "referenceMaxRelError", p.referenceMaxRel());
                num(g, "backendMaxRelError", p.backendMaxRel());
                g.writeNumberField("backendBeyondBound", p.backendOverBound());
                g.writeNumberField("elements", p.elements());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("warnings");
            for (String w : tw.warnings()) {
                g.writeString(w);
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        g.writeNumberField("backendRuns", r.backendRuns());
        g.writeArrayFieldStart("stages");
        for (StageVerdict v : r.stages()) {
            g.writeStartObject();
            g.writeNumberField("index", v.index());
            g.writeStringField("id", v.id());
            g.writeStringField("kind", v.kind());
            g.writeStringField("verdict", v.verdict().words());
            if (v.note() != null) {
                g.writeStringField("note", v.note());
            }
            if (!v.outputs().isEmpty()) {
                g.writeArrayFieldStart("outputs");
                for (Comparison c : v.outputs()) {
                    g.writeStartObject();
                    g.writeBooleanField("passed", c.passed());
                    g.writeNumberField("mismatches", c.mismatches());
                    g.writeStringField("summary", c.summary());
                    g.writeEndObject();
                }
                g.writeEndArray();
            }
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeArrayFieldStart("tensors");
        for (DiffResult.TensorVerdict t : r.tensors()) {
            g.writeStartObject();
            g.writeStringField("tensor", t.tensor());
            g.writeBooleanField("passed", t.comparison().passed());
            g.writeStringField("summary", t.comparison().summary());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeArrayFieldStart("notes");
        for (String n : r.notes()) {
            g.writeString(n);
        }
        g.writeEndArray();
        CaseResult c = divergentCase(r, backendName);
        if (c != null) {
            g.writeObjectFieldStart("divergentStageReport");
            JsonReport.write(g, List.of(c));
            g.writeEndObject();
        }
    }

    private static void num(JsonGenerator g, String field, double v) throws IOException {
        if (Double.isFinite(v)) {
            g.writeNumberField(field, v);
        } else if (Double.isNaN(v)) {
            g.writeNullField(field);
        } else {
            g.writeStringField(field, v > 0 ? "Infinity" : "-Infinity");
        }
    }

    /**
     * The HTML page: the stage list as a table coloured by verdict, the three-way figures, and a
     * link to {@code divergentReportHref} (the golden HTML report of the divergent stage's outputs,
     * written by the caller from {@link #divergentHtml}), when there is one.
     */
    public static String html(DiffResult r, String divergentReportHref) {
        StringBuilder b = new StringBuilder();
        b.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>stagecheck diff: ").append(esc(r.program()))
                .append("</title>\n<style>\nbody{font-family:sans-serif;margin:1.5em;color:#222}table{border-collapse:collapse}")
                .append("td,th{border:1px solid #bbb;padding:2px 8px;text-align:left;font-size:90%}")
                .append("tr.agrees{background:#e3f5e6}tr.diverges{background:#f8d7da}tr.not-traced{background:#f2f2f2;color:#777}")
                .append("tr.no-outputs{background:#fafafa;color:#777}tr.first{outline:3px solid #b00020}")
                .append(".verdict{font-weight:bold}pre{background:#f6f6f6;padding:.5em;white-space:pre-wrap}\n</style></head><body>\n");
        b.append("<h1>stagecheck diff</h1>\n<p><strong>").append(esc(DiffText.headline(r))).append("</strong></p>\n");
        Divergence d = r.divergence();
        if (d != null && divergentReportHref != null && r.divergentValues() != null) {
            b.append("<p><a href=\"").append(esc(divergentReportHref)).append("\">golden report of the divergent stage's outputs</a></p>\n");
        }
        if (d != null && d.suspects().size() > 1) {
            b.append("<p>suspects (").append(d.suspects().size()).append("): ").append(esc(String.join(", ", d.suspects()))).append("</p>\n");
        }
        if (r.threeWay() != null) {
            ThreeWay tw = r.threeWay();
            b.append("<h2>Rounding or bug: <span class=\"verdict\">").append(esc(tw.classification().words())).append("</span></h2>\n");
            b.append("<table><tr><th>port</th><th>dtype</th><th>derived bound</th><th>|reference - float64|</th><th>|backend - float64|</th>")
                    .append("<th>backend elements beyond the bound</th></tr>\n");
            for (ThreeWay.Port p : tw.ports()) {
                b.append(String.format(Locale.ROOT, "<tr><td>%s</td><td>%s</td><td>%.3g</td><td>%.3g</td><td>%.3g</td><td>%d of %d</td></tr>%n",
                        esc(p.buffer()), p.dtype(), p.maxBound(), p.referenceMaxError(), p.backendMaxError(), p.backendOverBound(), p.elements()));
            }
            b.append("</table>\n");
        }
        for (String n : r.notes()) {
            b.append("<p><em>note: ").append(esc(n)).append("</em></p>\n");
        }
        b.append("<h2>Stages</h2>\n<table><tr><th>#</th><th>stage</th><th>kind</th><th>verdict</th><th>detail</th></tr>\n");
        for (StageVerdict v : r.stages()) {
            boolean first = d != null && d.stageIndex() == v.index();
            String detail = v.outputs().stream().filter(c -> !c.passed()).map(Comparison::summary).findFirst().orElse(v.note() == null ? "" : v.note());
            b.append("<tr class=\"").append(v.verdict().words().replace(' ', '-')).append(first ? " first" : "").append("\"><td>")
                    .append(v.index()).append("</td><td>").append(esc(v.id())).append("</td><td>").append(esc(v.kind())).append("</td><td>")
                    .append(v.verdict().words()).append(first ? " (first divergent)" : "").append("</td><td>").append(esc(detail)).append("</td></tr>\n");
        }
        b.append("</table>\n");
        if (!r.tensors().isEmpty()) {
            b.append("<h2>DRAM tensors after the run</h2>\n<table><tr><th>tensor</th><th>comparison</th></tr>\n");
            for (DiffResult.TensorVerdict t : r.tensors()) {
                b.append("<tr class=\"").append(t.comparison().passed() ? "agrees" : "diverges").append("\"><td>").append(esc(t.tensor()))
                        .append("</td><td>").append(esc(t.comparison().summary())).append("</td></tr>\n");
            }
            b.append("</table>\n");
        }
        b.append("</body></html>\n");
        return b.toString();
    }

    /** The golden HTML report of the divergent stage's outputs, or null when no stage diverges. */
    public static String divergentHtml(DiffResult r, String backendName) {
        CaseResult c = divergentCase(r, backendName);
        return c == null ? null : HtmlReport.of(List.of(c));
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
