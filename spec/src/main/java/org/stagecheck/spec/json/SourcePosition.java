package org.stagecheck.spec.json;

/**
 * Where a value of an input lies: its file and its line and column there ({@link Pos#UNKNOWN}
 * when not known, e.g. a program built in memory).
 *
 * @param file the file as the caller named it; null when the value has no file
 * @param pos  the 1-based line and column
 */
public record SourcePosition(String file, Pos pos) {
    public static final SourcePosition UNKNOWN = new SourcePosition(null, Pos.UNKNOWN);

    public SourcePosition {
        pos = pos == null ? Pos.UNKNOWN : pos;
    }

    /** {@code FILE:LINE:COLUMN}, {@code FILE} when the position is unknown, {@code ?} with no file: how diagnostics begin. */
    public String prefix() {
        return (file == null ? "?" : file) + (pos.known() ? ":" + pos : "");
    }
}
