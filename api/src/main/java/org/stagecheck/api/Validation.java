package org.stagecheck.api;

import java.util.List;

/**
 * The structural validation of a program (brief, "Validation"; the rules of {@code stagecheck
 * validate}): every finding, each placed in the program's file.
 *
 * <pre>{@code
 * Validation v = Stagecheck.load(Path.of("chain.json")).validate();
 * if (!v.ok()) {
 *     v.diagnostics().forEach(d -> System.err.println(d.render()));
 * }
 * }</pre>
 *
 * @param diagnostics every finding, in the validator's order; empty when the program is well-formed
 */
public record Validation(List<PlacedDiagnostic> diagnostics) {
    public Validation {
        diagnostics = List.copyOf(diagnostics);
    }

    /** Whether the program is well-formed: no diagnostic at all. */
    public boolean ok() {
        return diagnostics.isEmpty();
    }

    /** The diagnostics' codes, in order. */
    public List<String> codes() {
        return diagnostics.stream().map(PlacedDiagnostic::code).toList();
    }
}
