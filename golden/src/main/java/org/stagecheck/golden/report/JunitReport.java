package org.stagecheck.golden.report;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

import org.stagecheck.golden.CaseResult;
import org.stagecheck.tensor.compare.Comparison;

/**
 * JUnit XML, so CI systems show each compared output as a test: one {@code <testsuite>} per case
 * (its {@code time} the case's, loading and running included) and in it one {@code <testcase>} per
 * output named {@code case/output} (its {@code time} the comparison's); a mismatching output is a
 * {@code <failure>} carrying the comparison's summary. A case with nothing compared (stale, checked
 * against another program, a backend fault, bad input) is one {@code <testcase>} named after the
 * case: a {@code <failure>}, or an {@code <error>} for bad input. The case's text report is the
 * suite's {@code <system-out>} unless it passed.
 */
public final class JunitReport {
    private JunitReport() {
    }

    public static String of(List<CaseResult> results) {
        long tests = results.stream().mapToLong(JunitReport::tests).sum();
        long failures = results.stream().mapToLong(JunitReport::failures).sum();
        long errors = results.stream().filter(r -> r.status() == CaseResult.Status.BAD_INPUT).count();
        Duration total = results.stream().map(CaseResult::time).filter(t -> t != null).reduce(Duration.ZERO, Duration::plus);
        StringBuilder b = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        b.append("<testsuites name=\"stagecheck golden\" tests=\"").append(tests).append("\" failures=\"").append(failures)
                .append("\" errors=\"").append(errors).append("\"").append(time(total)).append(">\n");
        for (CaseResult r : results) {
            b.append("  <testsuite name=\"").append(escape(r.name())).append("\" tests=\"").append(tests(r)).append("\" failures=\"")
                    .append(failures(r)).append("\" errors=\"").append(r.status() == CaseResult.Status.BAD_INPUT ? 1 : 0)
                    .append("\" skipped=\"0\"").append(time(r.time())).append(">\n");
            if (r.outputs().isEmpty()) {
                String tag = r.status() == CaseResult.Status.BAD_INPUT ? "error" : "failure";
                b.append("    <testcase classname=\"golden\" name=\"").append(escape(r.name())).append("\"").append(time(r.time()));
                if (r.passed()) {
                    b.append("/>\n");
                } else {
                    b.append(">\n      <").append(tag).append(" type=\"").append(r.status().name()).append("\" message=\"")
                            .append(escape(r.message() == null ? r.status().name() : r.message())).append("\">")
                            .append(escape(TextReport.caseText(r, false))).append("</").append(tag).append(">\n    </testcase>\n");
                }
            }
            for (CaseResult.OutputResult o : r.outputs()) {
                Comparison c = o.comparison();
                b.append("    <testcase classname=\"golden\" name=\"").append(escape(r.name() + "/" + o.tensor())).append("\"").append(time(o.time()));
                if (c.passed()) {
                    b.append("/>\n");
                    continue;
                }
                b.append(">\n      <failure type=\"MISMATCH\" message=\"").append(escape(c.summary())).append("\">")
                        .append(escape(TextReport.outputText(o.tensor(), c))).append("</failure>\n    </testcase>\n");
            }
            if (!r.passed()) {
                b.append("    <system-out>").append(escape(TextReport.caseText(r, false))).append("</system-out>\n");
            }
            b.append("  </testsuite>\n");
        }
        b.append("</testsuites>\n");
        return b.toString();
    }

    /** The test cases of a case: one per compared output, or the case itself when nothing was compared. */
    private static long tests(CaseResult r) {
        return r.outputs().isEmpty() ? 1 : r.outputs().size();
    }

    private static long failures(CaseResult r) {
        if (r.outputs().isEmpty()) {
            return r.passed() || r.status() == CaseResult.Status.BAD_INPUT ? 0 : 1;
        }
        return r.outputs().stream().filter(o -> !o.comparison().passed()).count();
    }

    /** {@code  time="0.123"} in seconds, or nothing when not measured. */
    private static String time(Duration d) {
        return d == null ? "" : String.format(Locale.ROOT, " time=\"%.6f\"", d.toNanos() / 1e9);
    }

    /** XML text and attribute escaping; characters XML 1.0 cannot hold become '?'. */
    static String escape(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&apos;");
                // every other char: kept, unless XML 1.0 cannot hold it
                default -> b.append(c < 0x20 && c != '\n' && c != '\t' && c != '\r' ? '?' : c);
            }
        }
        return b.toString();
    }
}
