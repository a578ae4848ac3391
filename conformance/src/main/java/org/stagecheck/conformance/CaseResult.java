package org.stagecheck.conformance;

import java.util.Objects;

/**
 * The outcome of one case on one backend.
 *
 * @param caseName the case's name
 * @param status   passed, failed or skipped
 * @param message  empty when passed; why it failed (the case, the tensor and the stage that wrote
 *                 it, the element, expected and actual as value and bits); the skip reason
 */
public record CaseResult(String caseName, Status status, String message) {
    /** What became of a case. */
    public enum Status { PASSED, FAILED, SKIPPED }

    public CaseResult {
        Objects.requireNonNull(caseName, "caseName");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(message, "message");
    }

    public boolean passed() {
        return status == Status.PASSED;
    }

    public boolean failed() {
        return status == Status.FAILED;
    }

    @Override
    public String toString() {
        return status + " " + caseName + (message.isEmpty() ? "" : ": " + message);
    }
}
