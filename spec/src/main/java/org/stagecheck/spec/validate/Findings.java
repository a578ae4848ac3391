package org.stagecheck.spec.validate;

import java.util.ArrayList;
import java.util.List;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.rules.Rule;
import org.stagecheck.spec.rules.Violation;

/**
 * The collecting context of one validation: every finding is kept, none stops the walk. Every
 * finding is a broken {@link Rule}, reported under that rule's one code.
 */
final class Findings {
    private final List<Diagnostic> list = new ArrayList<>();

    void program(Rule rule, String field, String message) {
        list.add(Diagnostic.atField(rule.code(), field, message));
    }

    void stage(Rule rule, int index, Stage s, String field, String buffer, String message) {
        list.add(Diagnostic.atStage(rule.code(), index, s.id(), "/stages/" + index + (field.isEmpty() ? "" : "/" + field), buffer, message));
    }

    /** Each violation of stage {@code index}, in order. */
    void stage(int index, Stage s, List<Violation> violations) {
        for (Violation v : violations) {
            stage(v.rule(), index, s, v.field(), v.buffer(), v.message());
        }
    }

    List<Diagnostic> toList() {
        return List.copyOf(list);
    }
}
