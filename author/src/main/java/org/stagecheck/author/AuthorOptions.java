package org.stagecheck.author;

/**
 * How to author a cut: over {@code tp} chips (1 = unsplit), each a grid of
 * {@code gridWidth x gridHeight} cores over which matmul column tiles are spread
 * (docs/author.md, "Lowering").
 */
public record AuthorOptions(int tp, int gridWidth, int gridHeight) {

    /** One chip of 2x2 cores. */
    public static AuthorOptions single() {
        return new AuthorOptions(1, 2, 2);
    }

    /** {@code tp} chips of 2x2 cores. */
    public static AuthorOptions split(int tp) {
        return new AuthorOptions(tp, 2, 2);
    }

    public AuthorOptions withTp(int newTp) {
        return new AuthorOptions(newTp, gridWidth, gridHeight);
    }

    /** What is wrong with these options, or null. */
    String problem() {
        if (tp < 1) {
            return "tp must be at least 1, not " + tp;
        }
        if (gridWidth < 1 || gridHeight < 1) {
            return "the core grid is at least 1x1, not " + gridWidth + "x" + gridHeight;
        }
        if ((long) gridWidth * gridHeight > 4096) {
            return "a core grid of more than 4096 cores is not supported";
        }
        return null;
    }
}
