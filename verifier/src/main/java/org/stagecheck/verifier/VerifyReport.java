package org.stagecheck.verifier;

import java.util.List;
import org.stagecheck.spec.diag.Diagnostic;

/**
 * The outcome of checking one program against its certificate (brief, "Certificates").
 *
 * @param diagnostics every finding, in the order found (obligation by obligation, stage order
 *                    within each)
 * @param obligations one result per {@link org.stagecheck.spec.cert.Obligation}, in declaration order
 */
public record VerifyReport(List<Diagnostic> diagnostics, List<ObligationResult> obligations) {
    public VerifyReport {
        diagnostics = List.copyOf(diagnostics);
        obligations = List.copyOf(obligations);
    }

    /** Whether every obligation this checker checks is discharged: no diagnostic at all. */
    public boolean holds() {
        return diagnostics.isEmpty();
    }

    /** The codes of the diagnostics, in order (handy for tests and scripts). */
    public List<String> codes() {
        return diagnostics.stream().map(Diagnostic::code).toList();
    }
}
