package org.stagecheck.golden.report;

import java.util.List;

import org.stagecheck.golden.CaseResult;

/**
 * JUnit XML, so CI systems show each case as a test: a mismatch or a stale case is a
 * {@code <failure>}, bad input an {@code <error>}; the body is the text report of the case.
 */
public final class JunitReport {
    private JunitReport() {
    }

    public static String of(List<CaseResult> results) {
        long failures = results.stream().filter(r -> r.status() == CaseResult.Status.FAIL || r.status() == CaseResult.Status.STALE).count();
        long errors = results.stream().filter(r -> r.status() == CaseResult.Status.BAD_INPUT).count();
        StringBuilder b = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        b.append("<testsuites tests=\"").append(results.size()).append("\" failures=\"").append(failures)
                .append("\" errors=\"").append(errors).append("\">\n");
        b.append("  <testsuite name=\"stagecheck golden\" tests=\"").append(results.size()).append("\" failures=\"").append(failures)
                .append("\" errors=\"").append(errors).append("\" skipped=\"0\">\n");
        for (CaseResult r : results) {
            b.append("    <testcase classname=\"golden\" name=\"").append(escape(r.name())).append("\"");
            if (r.passed()) {
                b.append("/>\n");
                continue;
            }
            String tag = r.status() == CaseResult.Status.BAD_INPUT ? "error" : "failure";
            b.append(">\n      <").append(tag).append(" type=\"").append(r.status().name()).append("\" message=\"")
                    .append(escape(r.message() == null ? r.status().name() : r.message())).append("\">")
                    .append(escape(TextReport.caseText(r, false))).append("</").append(tag).append(">\n    </testcase>\n");
        }
        b.append("  </testsuite>\n</testsuites>\n");
        return b.toString();
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
