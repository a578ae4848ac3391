package org.stagecheck.reduce;

/**
 * What a {@link FailureOracle} makes of one candidate. A failure has a <em>signature</em>: the
 * part of it that must stay the same while the program shrinks (a diagnostic code, the kind of
 * the first divergent stage, an exit status). Two failures are the same failure exactly when
 * their signatures are equal; the detail is for people.
 */
public sealed interface Verdict {
    /** The candidate fails, as {@code signature} says; {@code detail} says where and by how much. */
    record Fails(String signature, String detail) implements Verdict {}

    /** The candidate does not fail. */
    record Passes() implements Verdict {}

    /** Whether this is a failure with the same signature as {@code failure}. */
    default boolean sameFailureAs(Fails failure) {
        return this instanceof Fails f && f.signature().equals(failure.signature());
    }
}
