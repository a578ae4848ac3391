package org.stagecheck.tensor.compare;

import java.nio.ByteBuffer;

import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Storage;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.TensorFileException;

/**
 * One thread of a {@link Scan}: its own read buffers (one window per operand) and its own heat-map
 * cells, reused for every group of chunks it takes.
 */
final class Worker {
    private final Window e;
    private final Window a;
    private final Window tol;
    private final FloatFormat format;
    private final ElementTest test;
    private final CellMap cells;

    Worker(Source e, Source a, Source tol, int window, FloatFormat format, ElementTest test, CellMap cells) {
        this.e = new Window(e, window);
        this.a = new Window(a, window);
        this.tol = tol == null ? null : new Window(tol, window);
        this.format = format;
        this.test = test;
        this.cells = cells;
    }

    CellMap cells() {
        return cells;
    }

    /** Group {@code g}: chunks {@code [g * groupChunks, (g + 1) * groupChunks)} of a pass over {@code n} elements, into {@code fold}. */
    void group(int g, int groupChunks, long n, ChunkFold fold) throws TensorFileException {
        int chunk = Comparator.CHUNK;
        long from = (long) g * groupChunks * chunk;
        int count = (int) Math.min((long) groupChunks * chunk, n - from);
        e.load(from, count);
        a.load(from, count);
        if (tol != null) {
            tol.load(from, count);
        }
        float[] ef = e.tensor.rawFloats();
        float[] af = a.tensor.rawFloats();
        double[] tolD = tol == null ? null : tol.tensor.rawDoubles();
        float[] tolF = tol == null ? null : tol.tensor.rawFloats();
        boolean fast = ef != null && af != null && (tol == null || tolD != null || tolF != null);
        int chunks = (int) ((n + chunk - 1) / chunk);
        for (int c = g * groupChunks, last = Math.min(chunks, (g + 1) * groupChunks); c < last; c++) {
            long base = (long) c * chunk;
            int at = (int) (base - from);
            int len = (int) Math.min(chunk, n - base);
            int tolAt = tol == null ? 0 : tol.offset + at;
            fold.put(c, fast
                    ? F32Chunk.scan(ef, e.offset + at, af, a.offset + at, tolD, tolF, tolAt, len, base, test, cells)
                    : ChunkStats.generic(e.tensor, e.offset + at, a.tensor, a.offset + at, tol == null ? null : tol.tensor, tolAt, len, base,
                            format, test, cells));
        }
    }

    /**
     * Where one operand's elements of the current group are: {@code tensor} from {@code offset}.
     * A tensor in memory is its own window (no copy); a file's range is read into this window's
     * buffer; zeros are a buffer of zeros.
     */
    private static final class Window {
        private final Source source;
        private final Storage buffer;
        private final ByteBuffer bytes;
        Tensor tensor;
        int offset;

        Window(Source source, int capacity) {
            this.source = source;
            switch (source.operand) {
                case Operand.InMemory m -> {
                    buffer = null;
                    bytes = null;
                    tensor = m.tensor();
                }
                case Operand.NpyFile f -> {
                    buffer = source.reader.allocate(capacity);
                    bytes = source.reader.buffer(capacity);
                    tensor = Tensor.wrap(f.dtype(), Shape.of(capacity), buffer);
                }
                case Operand.Zeros z -> {
                    buffer = null;
                    bytes = null;
                    tensor = Tensor.wrapDoubles(DType.F32, Shape.of(capacity), new double[capacity]);
                }
            }
        }

        /** Elements {@code [from, from + count)}. */
        void load(long from, int count) throws TensorFileException {
            switch (source.operand) {
                case Operand.InMemory m -> offset = (int) from;
                case Operand.NpyFile f -> {
                    source.reader.read(from, count, buffer, bytes);
                    offset = 0;
                }
                case Operand.Zeros z -> offset = 0;
            }
        }
    }
}
