package org.stagecheck.reduce;

import java.util.List;

/**
 * What a reduction did: the original and minimal sizes, the failure both share, and the work:
 * oracle calls ({@code tries}), accepted shrinks, candidates the validator refused (never
 * tried), candidates that failed differently or passed (tried, rejected), wall-clock time, and
 * whether a budget limit stopped it before a fixed point.
 */
public record ReduceResult(Candidate original, Candidate minimal, Verdict.Fails failure,
                           int tries, int accepted, int invalid, int failedDifferently, int passed,
                           long millis, boolean budgetExhausted, List<String> steps) {
    public ReduceResult {
        steps = List.copyOf(steps);
    }

    /** One line: before and after sizes, the failure, the work. */
    public String summary() {
        return String.format(java.util.Locale.ROOT,
                "%s -> %s, still '%s'; %d tries (%d accepted, %d refused by the validator, %d failing differently, %d passing) in %.1f s%s",
                original.size(), minimal.size(), failure.signature(), tries, accepted, invalid, failedDifferently, passed,
                millis / 1000.0, budgetExhausted ? " (budget exhausted)" : "");
    }
}
