package org.stagecheck.interp;

import org.stagecheck.backend.BackendOptions;

/**
 * How to run a program (brief, "Reference semantics"): the interpreter's {@link BackendOptions}, given
 * to {@code Backends.named("interp", options)}.
 *
 * @param precision F32 (reference) or F64 ("true value")
 * @param trace     keep every stage's outputs, by stage id
 * @param stopAt    which non-finite values stop the run at the first stage that writes one, naming it
 * @param threads   worker threads for output-parallel loops; results never depend on it
 */
public record RunOptions(Precision precision, boolean trace, NonFiniteStop stopAt, int threads) implements BackendOptions {
    public RunOptions {
        if (precision == null) {
            throw new IllegalArgumentException("precision is required");
        }
        if (stopAt == null) {
            throw new IllegalArgumentException("stopAt is required (NonFiniteStop.NONE to never stop)");
        }
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, not " + threads);
        }
    }

    /** {@code stopAtNonFinite} true is {@link NonFiniteStop#ANY}, false is {@link NonFiniteStop#NONE}. */
    public RunOptions(Precision precision, boolean trace, boolean stopAtNonFinite, int threads) {
        this(precision, trace, stopAtNonFinite ? NonFiniteStop.ANY : NonFiniteStop.NONE, threads);
    }

    /** F32, no trace, no stop, threads = available processors. */
    public static RunOptions defaults() {
        return new RunOptions(Precision.F32, false, NonFiniteStop.NONE, Runtime.getRuntime().availableProcessors());
    }

    /** Whether some non-finite value stops the run. */
    public boolean stopAtNonFinite() {
        return stopAt != NonFiniteStop.NONE;
    }

    public RunOptions withTrace(boolean t) {
        return new RunOptions(precision, t, stopAt, threads);
    }

    public RunOptions withPrecision(Precision p) {
        return new RunOptions(p, trace, stopAt, threads);
    }

    public RunOptions withThreads(int n) {
        return new RunOptions(precision, trace, stopAt, n);
    }

    /** True stops at NaN or infinity ({@link NonFiniteStop#ANY}), false never stops. */
    public RunOptions withStopAtNonFinite(boolean b) {
        return withStopAt(b ? NonFiniteStop.ANY : NonFiniteStop.NONE);
    }

    public RunOptions withStopAt(NonFiniteStop mode) {
        return new RunOptions(precision, trace, mode, threads);
    }
}
