package org.stagecheck.cli;

import java.util.List;

import org.stagecheck.backend.Backend;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;

/**
 * The backends the command line can run by name ({@code golden check --backend NAME}). A new
 * backend is one more name in {@link #NAMES} and one more case in {@link #named}.
 */
final class Backends {
    /** The names accepted, in the order help lists them. */
    static final List<String> NAMES = List.of("interp");

    private Backends() {
    }

    static Backend named(String name) throws BadInputException {
        return switch (name) {
            case "interp" -> new Interpreter(RunOptions.defaults());
            default -> throw new BadInputException("unknown backend '" + name + "'; one of " + String.join(", ", NAMES));
        };
    }
}
