package org.stagecheck.spec.json;

/** A 1-based line and column in a source file; {@link #UNKNOWN} where there is no source. */
public record Pos(int line, int column) {
    public static final Pos UNKNOWN = new Pos(0, 0);

    public boolean known() {
        return line > 0;
    }

    @Override
    public String toString() {
        return known() ? line + ":" + column : "?";
    }
}
