package org.stagecheck.cli;

/**
 * One line of {@code cuda check}'s table: what was checked, on which backend, the result, a
 * one-line detail (what failed, or what passed), and how long it took.
 */
record CheckRow(String check, String backend, Result result, String detail, double seconds) {
    /** The outcome of one check. */
    enum Result {
        PASSED, FAILED, SKIPPED;

        String word() {
            return switch (this) {
                case PASSED -> "passed";
                case FAILED -> "failed";
                case SKIPPED -> "skipped";
            };
        }
    }

    CheckRow {
        detail = detail.replace('\n', ' ').strip();
    }

    boolean failed() {
        return result == Result.FAILED;
    }
}
