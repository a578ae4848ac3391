package org.stagecheck.golden;

import java.nio.file.Path;

/**
 * Bad input to a golden record or check (exit code 2 on the command line): a missing or malformed
 * file, a manifest field that is wrong, a tensor of the wrong shape or dtype, a path that leaves
 * the case directory. The message names the file and the field.
 */
public final class GoldenException extends Exception {
    private final transient Path file;
    private final String field;

    public GoldenException(Path file, String field, String message) {
        super((file == null ? "" : file + ": ") + (field == null ? "" : "field " + field + ": ") + message);
        this.file = file;
        this.field = field;
    }

    public GoldenException(Path file, String field, String message, Throwable cause) {
        this(file, field, message);
        initCause(cause);
    }

    /** The file at fault, or null. */
    public Path file() {
        return file;
    }

    /** The manifest field (a JSON pointer such as {@code /outputs/0/file}), or null. */
    public String field() {
        return field;
    }
}
