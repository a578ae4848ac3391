package org.stagecheck.spec.json;

import java.util.HashMap;
import java.util.Map;

/**
 * Hands out one instance for equal immutable values, so that what a million stages repeat (their
 * sites, port lists, kinds) is kept once in the decoded program (docs/format.md, "Reading speed").
 * Remembers at most {@code max} distinct values; past that, a new value is returned as it is.
 */
final class Interner<T> {
    private final int max;
    private final Map<T, T> known = new HashMap<>();

    Interner(int max) {
        this.max = max;
    }

    /** The instance equal to {@code value} handed out before, or {@code value} itself. */
    T intern(T value) {
        T earlier = known.get(value);
        if (earlier != null) {
            return earlier;
        }
        if (known.size() < max) {
            known.put(value, value);
        }
        return value;
    }
}
