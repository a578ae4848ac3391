package org.stagecheck.spec.json;

/** A 1-based line and column in a source file; {@link #UNKNOWN} where there is no source. */
public record Pos(int line, int column) {
    public static final Pos UNKNOWN = new Pos(0, 0);

    /** {@link #UNKNOWN} packed by {@link #pack}. */
    static final long UNKNOWN_PACKED = 0L;

    public boolean known() {
        return line > 0;
    }

    /**
     * Line and column in one {@code long} (line in the high 32 bits): what each {@link JNode}
     * stores, so that a value's position costs 8 bytes in its node instead of a 24-byte object
     * (docs/format.md, "Reading speed"). {@link #unpack} gives this position back exactly.
     */
    public long packed() {
        return pack(line, column);
    }

    static long pack(int line, int column) {
        return ((long) line << 32) | (column & 0xFFFF_FFFFL);
    }

    /** The position {@link #packed} into {@code p}; {@link #UNKNOWN} for an unknown one. */
    public static Pos unpack(long p) {
        int line = (int) (p >>> 32);
        int column = (int) p;
        return line == 0 && column == 0 ? UNKNOWN : new Pos(line, column);
    }

    @Override
    public String toString() {
        return known() ? line + ":" + column : "?";
    }
}
