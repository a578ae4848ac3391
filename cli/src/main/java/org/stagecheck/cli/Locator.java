package org.stagecheck.cli;

import org.stagecheck.spec.json.Pos;

/** Where a diagnostic's field (a JSON pointer) lies: which file, which line and column. */
@FunctionalInterface
interface Locator {
    Where locate(String field);

    /** A file and a position in it ({@link Pos#UNKNOWN} when not known). */
    record Where(String file, Pos pos) {
        String prefix() {
            return file + (pos.known() ? ":" + pos : "");
        }
    }
}
