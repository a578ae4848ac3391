package org.stagecheck.spec.json;

/**
 * {@link TreeBuilder} met a key twice in one object. Never seen by callers: {@link JsonReader}
 * then reads the text again with Jackson's own duplicate check, whose error is the one reported;
 * {@link #asFormatError()} stands in only should that second reading not fail (the file changed
 * in between).
 */
final class DuplicateKeyException extends Exception {
    private final String key;
    private final Pos pos;

    DuplicateKeyException(String key, Pos pos) {
        super("duplicate key " + key, null, false, false);
        this.key = key;
        this.pos = pos;
    }

    JsonFormatException asFormatError() {
        return new JsonFormatException("", pos, "malformed JSON: Duplicate field '" + key + "'");
    }
}
