package org.stagecheck.spec.validate;

import java.util.ArrayList;
import java.util.List;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Stage;

/** The collecting context of one validation: every finding is kept, none stops the walk. */
final class Findings {
    private final List<Diagnostic> list = new ArrayList<>();

    void program(String code, String field, String message) {
        list.add(Diagnostic.atField(code, field, message));
    }

    void stage(String code, int index, Stage s, String field, String buffer, String message) {
        list.add(Diagnostic.atStage(code, index, s.id(), "/stages/" + index + (field.isEmpty() ? "" : "/" + field), buffer, message));
    }

    List<Diagnostic> toList() {
        return List.copyOf(list);
    }
}
