package org.stagecheck.reduce;

/**
 * What a {@link FailureOracle} makes of one candidate. A failure has a <em>signature</em>: the
 * part of it that must stay the same while the program shrinks (a diagnostic code, the kind of
 * the first divergent stage, an exit status). Two failures are the same failure exactly when
 * their signatures are equal; the detail is for people.
 */
public sealed interface Verdict {
    /**
     * The candidate fails, as {@code signature} says; {@code detail} says where and by how much;
     * {@code cause} says whether the candidate failed or the test could not even be run.
     */
    record Fails(String signature, String detail, Cause cause) implements Verdict {
        public Fails {
            java.util.Objects.requireNonNull(cause, "cause");
        }

        /** A failure of the candidate itself. */
        public Fails(String signature, String detail) {
            this(signature, detail, Cause.CANDIDATE);
        }
    }

    /**
     * Why a verdict is a failure. Only {@link #CANDIDATE} is about the program: the others fail
     * every candidate alike, so a reduction from them would keep nothing.
     */
    enum Cause {
        /** The candidate failed the test. */
        CANDIDATE,
        /** The shell found no such test command (exit 127). */
        TEST_NOT_FOUND,
        /** The test command is not executable (exit 126). */
        TEST_NOT_EXECUTABLE,
        /** The test command could not be started at all. */
        TEST_NOT_STARTED;

        /** Whether the test itself could not be run. */
        public boolean testCouldNotRun() {
            return this != CANDIDATE;
        }
    }

    /** The candidate does not fail. */
    record Passes() implements Verdict {}

    /** Whether this is a failure with the same signature as {@code failure}. */
    default boolean sameFailureAs(Fails failure) {
        return this instanceof Fails f && f.signature().equals(failure.signature());
    }
}
