package org.stagecheck.tensor.compare;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import org.stagecheck.tensor.npy.TensorFileException;

/**
 * The one pass of a comparison: the elements cut into chunks of {@link Comparator#CHUNK}, each
 * chunk's {@link ChunkStats} computed by whichever worker takes it and merged in index order
 * ({@link ChunkFold}), so every figure is the same whatever the number of threads and wherever the
 * elements come from. Workers take groups of {@code groupChunks} chunks at a time; for an operand in a
 * file a group is one positional read into the worker's own buffer, so a pass holds
 * {@code workers x groupChunks x CHUNK} elements per file, never a whole tensor.
 */
final class Scan {
    /** Chunks per read: 8 x 2^15 elements, 1 MiB of f32 per file, large enough that a read costs little beyond its copy. */
    static final int GROUP_CHUNKS = 8;

    /** The merged statistics, and the heat map's cells (null when none was asked for). */
    record Result(ChunkStats total, CellMap cells) {}

    private Scan() {
    }

    /**
     * The statistics of {@code e} against {@code a} (same size) with {@code tol} (nullable, same
     * size), filling cells of {@code layout} (nullable) on the way.
     *
     * @throws TensorFileException when a file operand cannot be read
     */
    static Result run(Operand e, Operand a, Operand tol, FloatFormat f, ElementTest t, CellMap.Layout layout, int groupChunks)
            throws TensorFileException {
        long n = e.size();
        int chunks = Math.toIntExact((n + Comparator.CHUNK - 1) / Comparator.CHUNK);
        int groups = (chunks + groupChunks - 1) / groupChunks;
        int window = (int) Math.min(n, (long) groupChunks * Comparator.CHUNK);
        ChunkFold fold = new ChunkFold(chunks);
        int workers = chunks > 4 ? Math.min(groups, ForkJoinPool.getCommonPoolParallelism() + 1) : 1;
        CellMap[] cells = new CellMap[workers];
        try (Source es = Source.open(e); Source as = Source.open(a); Source ts = tol == null ? null : Source.open(tol)) {
            AtomicInteger next = new AtomicInteger();
            IntStream work = IntStream.range(0, workers);
            (workers > 1 ? work.parallel() : work).forEach(w -> {
                Worker worker = new Worker(es, as, ts, window, f, t, layout == null ? null : new CellMap(layout));
                try {
                    for (int g = next.getAndIncrement(); g < groups; g = next.getAndIncrement()) {
                        worker.group(g, groupChunks, n, fold);
                    }
                } catch (TensorFileException x) {
                    next.set(groups);   // the other workers stop at their next group
                    throw new Unreadable(x);
                }
                cells[w] = worker.cells();
            });
        } catch (RuntimeException x) {
            // the fork-join pool may hand a worker's exception back wrapped: find the file's among the causes
            for (Throwable c = x; c != null; c = c.getCause()) {
                if (c instanceof Unreadable u) {
                    throw u.file();
                }
            }
            throw x;
        }
        ChunkStats total = fold.total();
        CellMap map = layout == null ? null : new CellMap(layout);
        for (CellMap c : cells) {
            if (map != null && c != null) {
                map.merge(c);
            }
        }
        return new Result(total, map);
    }

    /** A file that could not be read, carried out of a worker's lambda. */
    private static final class Unreadable extends RuntimeException {
        private final TensorFileException file;

        Unreadable(TensorFileException file) {
            super(file.getMessage(), file, false, false);
            this.file = file;
        }

        TensorFileException file() {
            return file;
        }
    }
}
