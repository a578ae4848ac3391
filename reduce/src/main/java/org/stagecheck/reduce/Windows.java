package org.stagecheck.reduce;

import java.util.Optional;
import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.spec.validate.Validator;

/**
 * A window of a real program: its stages {@code [from, to)}, with what the stages before
 * {@code from} handed on fed from the reference run (as a cut does, {@link CutMove}) and the
 * stages from {@code to} on dropped. Generators use it to make many smaller programs shaped like
 * a compiler's output out of one authored program.
 */
public final class Windows {
    private Windows() {}

    /** The window, or empty when it is not well formed or the reference cannot supply what it needs. */
    public static Optional<Candidate> of(Candidate c, int from, int to, Backend reference) {
        int n = c.program().stages().size();
        if (from < 0 || to > n || from >= to) {
            throw new IllegalArgumentException("a window is 0 <= from < to <= " + n + ", not [" + from + ", " + to + ")");
        }
        Candidate head = c;
        if (to < n) {
            head = Prune.unused(new Candidate(c.program().withStages(c.program().stages().subList(0, to)), c.bound(), c.params()));
        }
        Candidate w = head;
        if (from > 0) {
            RunResult traced = reference.run(head.program(), head.bound(), head.params(), true);
            if (!traced.ok()) {
                return Optional.empty();
            }
            w = CutMove.at(head, from, traced, reference);
        }
        if (w == null || !new Validator().validate(w.program()).isEmpty()
                || !Dataflow.readsBeforeWrite(c.program()).containsAll(Dataflow.readsBeforeWrite(w.program()))) {
            return Optional.empty();
        }
        return Optional.of(w);
    }
}
