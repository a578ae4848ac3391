package org.stagecheck.verifier.report;

import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.verifier.ObligationResult;
import org.stagecheck.verifier.VerifyReport;

/**
 * A report as text for people: one block per diagnostic ({@link Diagnostic#render()}, trail
 * indented under it), then one line per obligation, then the verdict.
 */
public final class ReportText {

    public String render(VerifyReport report) {
        StringBuilder sb = new StringBuilder();
        for (Diagnostic d : report.diagnostics()) {
            sb.append(d.render()).append('\n');
        }
        if (!report.diagnostics().isEmpty()) {
            sb.append('\n');
        }
        for (ObligationResult o : report.obligations()) {
            sb.append(String.format("%-16s %-12s%s%s%n", o.obligation().jsonName(),
                    o.status().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'),
                    o.findings() > 0 ? o.findings() + " finding(s). " : "",
                    o.claimed() && o.status() == ObligationResult.Status.VIOLATED ? "(the certificate claimed it) " : ""));
        }
        sb.append(report.holds() ? "verified: every checked obligation is discharged\n"
                : "not verified: " + report.diagnostics().size() + " finding(s)\n");
        return sb.toString();
    }
}
