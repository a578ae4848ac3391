package org.stagecheck.verifier;

import java.time.Duration;
import java.util.Objects;
import org.stagecheck.spec.cert.Obligation;

/**
 * What became of one obligation in a verification.
 *
 * @param obligation the obligation
 * @param status     whether it was discharged, violated, or not checked by this module
 * @param claimed    whether the certificate claimed it discharged (a claim is never trusted; it
 *                   only tells a reader which violations contradict the compiler's word)
 * @param findings   how many diagnostics carry one of its codes
 * @param note       what was and was not checked, one sentence
 * @param elapsed    the wall time the checker spent on it (for reports that show times, e.g.
 *                   JUnit XML; not part of the JSON report, which stays the same from run to run)
 */
public record ObligationResult(Obligation obligation, Status status, boolean claimed, int findings, String note, Duration elapsed) {

    public enum Status {
        /** Every rule of the obligation was checked and none failed. */
        DISCHARGED,
        /** At least one diagnostic carries one of its codes. */
        VIOLATED,
        /** This module does not check it (see {@link #note}). */
        NOT_CHECKED
    }

    public ObligationResult {
        Objects.requireNonNull(obligation, "obligation");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(note, "note");
        Objects.requireNonNull(elapsed, "elapsed");
    }

    /** A result whose time was not measured. */
    public ObligationResult(Obligation obligation, Status status, boolean claimed, int findings, String note) {
        this(obligation, status, claimed, findings, note, Duration.ZERO);
    }
}
