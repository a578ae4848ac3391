package org.stagecheck.verifier;

import java.util.ArrayList;
import java.util.List;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Stage;

/**
 * The diagnostics of one verification, collected in the order they are found (the checker never
 * stops at the first; brief, "Certificates"). One instance per {@link Verifier#verify} call.
 */
public final class Findings {
    private final List<Diagnostic> found = new ArrayList<>();
    private int structural;

    /** The spec validator's findings: they belong to the well-formed obligation. */
    public void structural(List<Diagnostic> diagnostics) {
        found.addAll(diagnostics);
        structural += diagnostics.size();
    }

    /** A finding about stage {@code index}; {@code field} is relative to the stage (e.g. {@code /kind/op/bias}) or null. */
    public void atStage(Code code, int index, Stage stage, String field, String buffer, String message, List<String> trail) {
        String pointer = "/stages/" + index + (field == null ? "" : field);
        found.add(new Diagnostic(code.name(), index, stage.id(), pointer, buffer, message, trail));
    }

    public void atStage(Code code, int index, Stage stage, String field, String buffer, String message) {
        atStage(code, index, stage, field, buffer, message, List.of());
    }

    /** A finding about a declaration (of the program or the certificate); {@code pointer} is absolute. */
    public void atField(Code code, String pointer, String buffer, String message) {
        found.add(new Diagnostic(code.name(), -1, null, pointer, buffer, message, List.of()));
    }

    /** Appends {@code other}'s findings, in their order. */
    public void addAll(Findings other) {
        found.addAll(other.found);
        structural += other.structural;
    }

    public List<Diagnostic> all() {
        return List.copyOf(found);
    }

    /** How many findings carry a code of {@code obligation}. */
    public int count(org.stagecheck.spec.cert.Obligation obligation) {
        int n = obligation == org.stagecheck.spec.cert.Obligation.WELL_FORMED ? structural : 0;
        for (Diagnostic d : found) {
            Code c = Code.of(d.code());
            if (c != null && c.obligation() == obligation) {
                n++;
            }
        }
        return n;
    }
}
