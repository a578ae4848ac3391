package org.stagecheck.cli;

import java.util.List;

import org.stagecheck.backend.Backend;
import org.stagecheck.backend.UnknownBackendException;
import org.stagecheck.interp.RunOptions;

/**
 * The backends the command line can run by name ({@code golden check --backend NAME}): the names
 * of the registry {@link org.stagecheck.backend.Backends}, an unknown one being bad input.
 */
final class Backends {
    private Backends() {
    }

    /** The names accepted, in the order help lists them (the reference first). */
    static List<String> names() {
        return org.stagecheck.backend.Backends.names();
    }

    /** The backend {@code name} with its default options; an unknown name is the user's bad input. */
    static Backend named(String name) throws BadInputException {
        try {
            return org.stagecheck.backend.Backends.named(name);
        } catch (UnknownBackendException e) {
            throw new BadInputException(e.getMessage());
        }
    }

    /** The reference interpreter with {@code options}. */
    static Backend reference(RunOptions options) {
        return org.stagecheck.backend.Backends.named("interp", options);
    }
}
