package org.stagecheck.spec.ir;

import java.util.Locale;

/** The reduction of a {@code Reduce} compute op along one axis. ARGMAX yields an i32 index. */
public enum ReduceFn {
    SUM, MAX, MIN, ARGMAX;

    public String jsonName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
