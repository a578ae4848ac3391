package org.stagecheck.cli;

import java.util.List;
import java.util.Locale;

/** {@code cuda check}'s table (check, backend, result, detail, seconds) as text, and its JSON fields. */
final class CheckTable {
    /** Detail beyond this many characters is cut in the text table (the JSON keeps all of it). */
    static final int DETAIL_WIDTH = 100;

    private CheckTable() {
    }

    static String text(List<CheckRow> rows) {
        int check = "check".length();
        int backend = "backend".length();
        for (CheckRow r : rows) {
            check = Math.max(check, r.check().length());
            backend = Math.max(backend, r.backend().length());
        }
        String format = "%-" + check + "s  %-" + backend + "s  %-7s  %8s  %s%n";
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, format, "check", "backend", "result", "seconds", "detail"));
        for (CheckRow r : rows) {
            String detail = r.detail().length() > DETAIL_WIDTH ? r.detail().substring(0, DETAIL_WIDTH - 3) + "..." : r.detail();
            sb.append(String.format(Locale.ROOT, format, r.check(), r.backend(), r.result().word(),
                    String.format(Locale.ROOT, "%.2f", r.seconds()), detail));
        }
        return sb.toString();
    }

    /** The summary line under the table. */
    static String summary(List<CheckRow> rows) {
        long failed = rows.stream().filter(CheckRow::failed).count();
        long skipped = rows.stream().filter(r -> r.result() == CheckRow.Result.SKIPPED).count();
        return String.format(Locale.ROOT, "%s: %d checks, %d failed, %d skipped", failed == 0 ? "PASSED" : "FAILED", rows.size(), failed, skipped);
    }

    /** The rows as a JSON array field {@code checks}. */
    static void json(com.fasterxml.jackson.core.JsonGenerator g, List<CheckRow> rows) throws java.io.IOException {
        g.writeArrayFieldStart("checks");
        for (CheckRow r : rows) {
            g.writeStartObject();
            g.writeStringField("check", r.check());
            g.writeStringField("backend", r.backend());
            g.writeStringField("result", r.result().word());
            g.writeStringField("detail", r.detail());
            g.writeNumberField("seconds", Math.round(r.seconds() * 1000) / 1000.0);
            g.writeEndObject();
        }
        g.writeEndArray();
    }
}
