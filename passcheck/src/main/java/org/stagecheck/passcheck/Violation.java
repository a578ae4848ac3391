package org.stagecheck.passcheck;

/**
 * A law that does not hold on one program. The {@code signature} is what shrinking keeps equal
 * (the law and the first finding's code, say {@code same outputs: differ} or {@code
 * well-formed: UNKNOWN_BUFFER}); the message says what and where for people.
 */
public record Violation(String law, String signature, String message) {}
