package org.stagecheck.spec.json;

/**
 * The input is not a readable file of the expected format: malformed JSON, a wrong type, an
 * unknown or missing field. Carries the JSON pointer and source position of the offending value.
 * This is "bad input" (exit code 2), as opposed to a well-formed program that fails validation.
 */
public final class JsonFormatException extends Exception {
    private final String pointer;
    private final Pos pos;
    private final String detail;

    public JsonFormatException(String pointer, Pos pos, String detail) {
        super((pos.known() ? pos + ": " : "") + detail + (pointer.isEmpty() ? "" : " (at " + pointer + ")"));
        this.pointer = pointer;
        this.pos = pos;
        this.detail = detail;
    }

    public String pointer() {
        return pointer;
    }

    public Pos pos() {
        return pos;
    }

    public String detail() {
        return detail;
    }

    /** {@code FILE:LINE:COL: what} where the position is known, {@code FILE: what} otherwise: the message a person reads. */
    public String messageIn(java.nio.file.Path file) {
        return file + (pos.known() ? ":" : ": ") + getMessage();
    }
}
