package org.stagecheck.interp;

import java.util.Locale;

/**
 * Which values stop a run at the first stage that writes one (docs/semantics.md, "Stopping at
 * non-finite values"). A causal attention mask writes -inf on purpose, so {@link #NAN} is the mode
 * a user wants first: NaN is never intended, an infinity often is.
 */
public enum NonFiniteStop {
    /** Never stop. */
    NONE,
    /** Stop at the first NaN. */
    NAN,
    /** Stop at the first +inf or -inf. */
    INF,
    /** Stop at the first NaN or infinity. */
    ANY;

    /** Whether {@code v} stops a run in this mode. */
    public boolean stopsAt(double v) {
        return switch (this) {
            case NONE -> false;
            case NAN -> Double.isNaN(v);
            case INF -> Double.isInfinite(v);
            case ANY -> !Double.isFinite(v);
        };
    }

    /** The CLI's spelling: {@code none}, {@code nan}, {@code inf}, {@code any}. */
    public String spelling() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The mode spelled {@code text} (any case), or null. */
    public static NonFiniteStop parse(String text) {
        for (NonFiniteStop m : values()) {
            if (m.spelling().equalsIgnoreCase(text)) {
                return m;
            }
        }
        return null;
    }
}
