package org.stagecheck.interp;

/**
 * How to run a program (brief, "Reference semantics").
 *
 * @param precision        F32 (reference) or F64 ("true value")
 * @param trace            keep every stage's outputs, by stage id
 * @param stopAtNonFinite  stop at the first stage whose output holds NaN or Inf, and name it
 * @param threads          worker threads for output-parallel loops; results never depend on it
 */
public record RunOptions(Precision precision, boolean trace, boolean stopAtNonFinite, int threads) {
    public RunOptions {
        if (precision == null) {
            throw new IllegalArgumentException("precision is required");
        }
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, not " + threads);
        }
    }

    /** F32, no trace, no stop, threads = available processors. */
    public static RunOptions defaults() {
        return new RunOptions(Precision.F32, false, false, Runtime.getRuntime().availableProcessors());
    }

    public RunOptions withTrace(boolean t) {
        return new RunOptions(precision, t, stopAtNonFinite, threads);
    }

    public RunOptions withPrecision(Precision p) {
        return new RunOptions(p, trace, stopAtNonFinite, threads);
    }

    public RunOptions withThreads(int n) {
        return new RunOptions(precision, trace, stopAtNonFinite, n);
    }

    public RunOptions withStopAtNonFinite(boolean b) {
        return new RunOptions(precision, trace, b, threads);
    }
}
