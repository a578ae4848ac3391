package org.stagecheck.golden.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.npy.Npy;

/**
 * The comparison bench's data, written straight to .npy files block by block, so that no tensor
 * is ever whole in memory: per tensor an expected file of f32 values uniform in [-2, 2), an actual
 * file equal to it but every seventh element one ULP up, and a tolerance file of four ULPs of each
 * expected value. Element {@code i}'s values depend only on its tensor and its block, whatever
 * thread writes it.
 */
final class BenchData {
    /** Elements per generated block (one random stream each, 4 MiB per file). */
    static final int BLOCK = 1 << 20;

    /** The three files of each tensor, and the tensors' shape. */
    record Files(List<Path> expected, List<Path> actual, List<Path> tolerance, Shape shape) {
        long bytesPerFile() {
            return 4 * shape.elementCount();
        }
    }

    private BenchData() {
    }

    /** {@code [n / 1024, 1024]} when 1024 divides {@code n} (a matrix, as outputs are, so that the heat map is made), else {@code [n]}. */
    static Shape shape(int n) {
        return n % 1024 == 0 ? Shape.of(n / 1024, 1024) : Shape.of(n);
    }

    /** Bytes {@link #write} puts on disk for {@code tensors} tensors of {@code n} elements. */
    static long bytesOnDisk(int tensors, int n) {
        return 3L * tensors * (Npy.headerBytes(DType.F32, shape(n), false).length + 4L * n);
    }

    /** Writes {@code tensors} triples of {@code n} elements each into {@code dir}, over every core; progress in bytes. */
    static Files write(Path dir, int tensors, int n, Progress progress) throws IOException {
        Shape shape = shape(n);
        byte[] header = Npy.headerBytes(DType.F32, shape, false);
        List<Path> e = new ArrayList<>();
        List<Path> a = new ArrayList<>();
        List<Path> t = new ArrayList<>();
        List<FileChannel> open = new ArrayList<>();
        try {
            for (int k = 0; k < tensors; k++) {
                for (List<Path> kind : List.of(e, a, t)) {
                    Path f = dir.resolve((kind == e ? "expected" : kind == a ? "actual" : "tolerance") + k + ".npy");
                    FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                    open.add(ch);
                    kind.add(f);
                    writeFully(ch, ByteBuffer.wrap(header), 0);
                }
            }
            int blocks = (n + BLOCK - 1) / BLOCK;
            int jobs = tensors * blocks;
            AtomicInteger next = new AtomicInteger();
            int workers = Math.min(jobs, ForkJoinPool.getCommonPoolParallelism() + 1);
            IntStream.range(0, workers).parallel().forEach(w -> {
                ByteBuffer[] bufs = new ByteBuffer[3];
                for (int i = 0; i < 3; i++) {
                    bufs[i] = ByteBuffer.allocateDirect(4 * BLOCK).order(ByteOrder.LITTLE_ENDIAN);
                }
                for (int j = next.getAndIncrement(); j < jobs; j = next.getAndIncrement()) {
                    int k = j / blocks;
                    int b = j % blocks;
                    int from = b * BLOCK;
                    int to = Math.min(n, from + BLOCK);
                    fill(k, b, from, to, bufs);
                    for (int i = 0; i < 3; i++) {
                        try {
                            writeFully(open.get(3 * k + i), bufs[i], header.length + 4L * from);
                        } catch (IOException x) {
                            next.set(jobs);
                            throw new UncheckedIOException(x);
                        }
                    }
                    progress.advance(3L * 4 * (to - from));
                }
            });
        } catch (UncheckedIOException x) {
            throw x.getCause();
        } finally {
            for (FileChannel ch : open) {
                ch.close();
            }
        }
        return new Files(e, a, t, shape);
    }

    /** Block {@code b} (elements {@code [from, to)}) of tensor {@code k}: expected, actual, tolerance into {@code bufs}. */
    private static void fill(int k, int b, int from, int to, ByteBuffer[] bufs) {
        SplittableRandom r = new SplittableRandom(k * 1_000_003L + b);
        for (ByteBuffer buf : bufs) {
            buf.clear();
        }
        for (int i = from; i < to; i++) {
            float v = (float) (r.nextDouble() * 4 - 2);
            bufs[0].putFloat(v);
            bufs[1].putFloat(i % 7 == 0 ? Math.nextUp(v) : v);
            bufs[2].putFloat(4 * Math.ulp(v));
        }
        for (ByteBuffer buf : bufs) {
            buf.flip();
        }
    }

    private static void writeFully(FileChannel ch, ByteBuffer buf, long at) throws IOException {
        long pos = at;
        while (buf.hasRemaining()) {
            pos += ch.write(buf, pos);
        }
    }
}
