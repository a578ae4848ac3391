package org.stagecheck.backend;

import java.util.List;

/**
 * No registered provider offers a backend of the name asked for (a user's typo on the command
 * line, or a module missing from the class path). The message names the backends there are.
 */
public final class UnknownBackendException extends IllegalArgumentException {
    private final String name;
    private final transient List<String> known;

    public UnknownBackendException(String name, List<String> known) {
        super("unknown backend '" + name + "'; one of " + String.join(", ", known));
        this.name = name;
        this.known = List.copyOf(known);
    }

    /** The name asked for. */
    public String name() {
        return name;
    }

    /** The names there are, as {@link Backends#names()} lists them. */
    public List<String> known() {
        return known;
    }
}
