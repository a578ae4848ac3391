package org.stagecheck.spec.json;

/** A syntax error at 0-based character {@code offset} of an expression or offset text. */
public final class TextSyntaxException extends Exception {
    private final int offset;

    public TextSyntaxException(int offset, String message) {
        super(message);
        this.offset = offset;
    }

    public int offset() {
        return offset;
    }
}
