package org.stagecheck.golden.report;

import java.util.Base64;
import java.util.List;
import java.util.Locale;

import org.stagecheck.golden.CaseResult;
import org.stagecheck.tensor.compare.Comparison;
import org.stagecheck.tensor.compare.ErrorMap;

/**
 * A self-contained HTML report (no external resource): a summary table of the cases, then per
 * case each output's figures and, for outputs of rank 2 or more, a heat map of the error as an
 * embedded PNG.
 */
public final class HtmlReport {
    private HtmlReport() {
    }

    public static String of(List<CaseResult> results) {
        StringBuilder b = new StringBuilder();
        b.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>stagecheck golden report</title>\n<style>\n")
                .append("body{font-family:sans-serif;margin:1.5em;color:#222}table{border-collapse:collapse;margin:.5em 0}")
                .append("td,th{border:1px solid #bbb;padding:2px 8px;text-align:left;font-size:90%}")
                .append(".PASS{color:#11772a;font-weight:bold}.FAIL,.BAD_INPUT{color:#b00020;font-weight:bold}.STALE,.PROGRAM_DIFFERS{color:#a66000;font-weight:bold}")
                .append("pre{background:#f6f6f6;padding:.5em;white-space:pre-wrap}img.heat{image-rendering:pixelated;border:1px solid #888}")
                .append(".legend span{display:inline-block;padding:2px 6px;margin-right:4px;border:1px solid #888}\n</style></head><body>\n");
        b.append("<h1>stagecheck golden report</h1>\n<p>").append(esc(TextReport.total(results))).append("</p>\n");
        b.append("<table><tr><th>case</th><th>status</th><th>backend</th><th>message</th></tr>\n");
        for (int i = 0; i < results.size(); i++) {
            CaseResult r = results.get(i);
            b.append("<tr><td><a href=\"#case").append(i).append("\">").append(esc(r.name())).append("</a></td><td class=\"")
                    .append(r.status().name()).append("\">").append(r.status().name()).append("</td><td>").append(esc(r.backend()))
                    .append("</td><td>").append(esc(r.message() == null ? "" : r.message())).append("</td></tr>\n");
        }
        b.append("</table>\n<p class=\"legend\">heat map: <span style=\"background:#fff\">equal</span>")
                .append("<span style=\"background:#ffff78\">small error</span><span style=\"background:#0066dc;color:#fff\">largest error within the policy</span>")
                .append("<span style=\"background:#ffaa00\">fails, small</span><span style=\"background:#9b0000;color:#fff\">fails, largest</span>")
                .append("<span style=\"background:#000;color:#fff\">NaN/Inf disagree</span> (colour is log scale over six decades below the largest error)</p>\n");
        for (int i = 0; i < results.size(); i++) {
            caseSection(b, i, results.get(i));
        }
        b.append("</body></html>\n");
        return b.toString();
    }

    private static void caseSection(StringBuilder b, int i, CaseResult r) {
        b.append("<h2 id=\"case").append(i).append("\">").append(esc(r.name())).append(" <span class=\"").append(r.status().name())
                .append("\">").append(r.status().name()).append("</span></h2>\n");
        if (r.message() != null) {
            b.append("<p>").append(esc(r.message())).append("</p>\n");
        }
        for (String w : r.warnings()) {
            b.append("<p><em>note: ").append(esc(w)).append("</em></p>\n");
        }
        for (CaseResult.OutputResult o : r.outputs()) {
            Comparison c = o.comparison();
            b.append("<h3>").append(esc(o.tensor())).append(" <span class=\"").append(c.passed() ? "PASS" : "FAIL").append("\">")
                    .append(c.passed() ? "PASS" : "FAIL").append("</span></h3>\n");
            b.append("<pre>").append(esc(TextReport.outputText(o.tensor(), c))).append("</pre>\n");
            ErrorMap m = o.errorMap();
            if (m != null) {
                String data = Base64.getEncoder().encodeToString(HeatMap.png(m));
                b.append(String.format(Locale.ROOT, "<p>|actual - expected| of %s seen as %d x %d", esc(o.tensor()), m.srcRows(), m.srcCols()));
                if (m.rows() != m.srcRows() || m.cols() != m.srcCols()) {
                    b.append(String.format(Locale.ROOT, ", pooled by maximum into %d x %d cells", m.rows(), m.cols()));
                }
                b.append(":</p>\n<img class=\"heat\" alt=\"error heat map of ").append(esc(o.tensor()))
                        .append("\" src=\"data:image/png;base64,").append(data).append("\">\n");
            }
        }
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
