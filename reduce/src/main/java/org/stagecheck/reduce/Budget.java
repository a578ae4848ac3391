package org.stagecheck.reduce;

import java.time.Duration;

/**
 * How much a reduction may spend: at most {@code tries} oracle calls and {@code time} of wall
 * clock. The reducer stops at the first limit reached and returns the smallest failing program
 * found so far (always one that fails the same way).
 */
public record Budget(int tries, Duration time) {
    public Budget {
        if (tries < 1) {
            throw new IllegalArgumentException("a budget allows at least one try, not " + tries);
        }
        if (time.isNegative() || time.isZero()) {
            throw new IllegalArgumentException("a budget allows some time, not " + time);
        }
    }

    /** 2 000 tries or 10 minutes. */
    public static Budget defaults() {
        return new Budget(2_000, Duration.ofMinutes(10));
    }
}
