package org.stagecheck.reduce;

/**
 * Decides whether a candidate still fails, and how: a comparison of two backends
 * ({@link DivergenceOracle}), a user's command ({@link CommandOracle}), a law of a compiler pass,
 * or anything else. An oracle is only asked about candidates that the validator accepts.
 */
@FunctionalInterface
public interface FailureOracle {
    Verdict judge(Candidate candidate);
}
