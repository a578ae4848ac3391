package org.stagecheck.verifier;

import java.util.ArrayList;
import java.util.List;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Program;

/**
 * A caller's demand that the logical program be checked ({@code stagecheck verify
 * --require-parent}; docs/verifier.md, "The unsplit parent"): a verification that did not compare
 * the program with its unsplit parent gets one {@link Code#LOGICAL_PROGRAM_NOT_CHECKED} finding,
 * so the verdict fails and every report (text, JSON, SARIF, JUnit) says why.
 */
public final class ParentRequirement {
    private ParentRequirement() {
    }

    /**
     * Whether {@code parent} checks the logical program of {@code program}: an unsplit parent
     * does; a remap parent does only for a program on one chip (it is its own logical program);
     * no parent does not.
     */
    public static boolean checksLogicalProgram(Program program, Parent parent) {
        return switch (parent) {
            case Parent.Unsplit _ -> true;
            case Parent.Remap _ -> program.machine().chips() == 1;
            case Parent.None _ -> false;
        };
    }

    /** {@code report}, with the finding when {@code parent} does not check the logical program. */
    public static VerifyReport apply(VerifyReport report, Program program, Parent parent) {
        if (checksLogicalProgram(program, parent)) {
            return report;
        }
        String message = switch (parent) {
            case Parent.Remap _ -> "The logical program was NOT checked: the parent was given as the program this one was remapped from"
                    + " (--remapped-from), and this program runs on several chips; give its unsplit program as --unsplit;"
                    + " --require-parent makes that a failure.";
            case Parent.Unsplit _, Parent.None _ -> "The logical program was NOT checked: give the unsplit program as --unsplit;"
                    + " --require-parent makes that a failure.";
        };
        Diagnostic finding = new Diagnostic(Code.LOGICAL_PROGRAM_NOT_CHECKED.name(), -1, null, null, null, message, List.of());
        List<Diagnostic> diagnostics = new ArrayList<>(report.diagnostics());
        diagnostics.add(finding);
        List<ObligationResult> obligations = new ArrayList<>();
        for (ObligationResult o : report.obligations()) {
            obligations.add(o.obligation() != Code.LOGICAL_PROGRAM_NOT_CHECKED.obligation() ? o
                    : new ObligationResult(o.obligation(), ObligationResult.Status.VIOLATED, o.claimed(), o.findings() + 1, o.note(), o.elapsed()));
        }
        return new VerifyReport(diagnostics, obligations);
    }
}
