package org.stagecheck.cuda.lower;

/**
 * How a fast kernel splits an accumulation of {@code length} terms (docs/cuda.md, "Fast kernels"):
 * into {@code chunks} interleaved chunks, chunk {@code s} holding the terms {@code s, s + chunks,
 * s + 2 chunks, ...}, each summed by its own thread, then the chunks' partial results combined in
 * chunk order {@code 0, 1, ..., chunks - 1} by one thread per output.
 *
 * <p>The rule: {@code chunks} is the largest power of two with {@code chunks * MIN_CHUNK <= length},
 * at most {@link #MAX_CHUNKS}; fewer than two chunks is no split. So every chunk holds at least
 * {@link #MIN_CHUNK} terms ({@code length / chunks} rounded up or down), and a 4096-long
 * contraction becomes 32 chunks of 128. A term then passes through at most
 * {@code ceil(length / chunks) + chunks <= length + 1} roundings (its chunk's chain, then the
 * combine), the depth the reference's own chain has: the error argument of the derived bound.
 *
 * @param chunks the number of chunks, at least 2
 * @param length the accumulation length
 */
public record Split(int chunks, int length) {
    /** The fewest terms a chunk sums: below that a second launch costs more than it saves. */
    public static final int MIN_CHUNK = 16;
    /** The most chunks: a warp of 32 threads covers one output's chunks. */
    public static final int MAX_CHUNKS = 32;
    /** A MatMul with at most this many output rows (decode, a small batch) splits its contraction. */
    public static final int FEW_ROWS = 16;

    public Split {
        if (chunks < 2 || chunks > length) {
            throw new IllegalArgumentException("a split has 2 to " + length + " chunks, not " + chunks);
        }
    }

    /** The split of an accumulation of {@code length} terms, or null when it stays one chain. */
    public static Split of(long length) {
        long limit = Math.min(MAX_CHUNKS, length / MIN_CHUNK);
        if (limit < 2) {
            return null;
        }
        return new Split(Integer.highestOneBit((int) limit), Math.toIntExact(length));
    }

    /** The split of a MatMul with {@code rows} output rows and contraction {@code k}, or null. */
    public static Split ofMatMul(int rows, int k) {
        return rows <= FEW_ROWS ? of(k) : null;
    }

    /** The most terms one chunk holds. */
    public int longestChunk() {
        return (length + chunks - 1) / chunks;
    }
}
