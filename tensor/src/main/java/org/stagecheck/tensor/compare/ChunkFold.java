package org.stagecheck.tensor.compare;

/**
 * The statistics of a pass's chunks merged in index order as the workers hand them in, whatever
 * order they finish in: a chunk waits only while a chunk before it is still being computed, so
 * a pass holds the statistics of the chunks in flight, not of the whole tensor. Merging strictly
 * in index order keeps every figure independent of the threads.
 */
final class ChunkFold {
    private final ChunkStats[] waiting;
    private final ChunkStats total = new ChunkStats();
    private int next;

    ChunkFold(int chunks) {
        waiting = new ChunkStats[chunks];
    }

    /** Chunk {@code c}'s statistics; merges it, and the waiting chunks after it, once every chunk before it is in. */
    synchronized void put(int c, ChunkStats s) {
        waiting[c] = s;
        while (next < waiting.length && waiting[next] != null) {
            total.merge(waiting[next]);
            waiting[next++] = null;
        }
    }

    /** The merged statistics; every chunk must have been put. */
    synchronized ChunkStats total() {
        if (next != waiting.length) {
            throw new IllegalStateException("chunk " + next + " of " + waiting.length + " was never put");
        }
        return total;
    }
}
