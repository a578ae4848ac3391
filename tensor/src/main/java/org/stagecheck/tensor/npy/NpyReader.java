package org.stagecheck.tensor.npy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.stagecheck.spec.ir.DType;
import org.stagecheck.tensor.Storage;

/**
 * A .npy file opened for reading ranges of its elements, so that a caller folds a tensor of
 * gigabytes through buffers of its own size instead of holding it whole (golden check's streamed
 * comparison). The header is checked when the file opens exactly as {@link Npy#read} checks it (a
 * regular file, numpy's dict, a size that matches the data), with the same messages. Reads are
 * positional: several threads may read different ranges at once, each through its own buffer.
 *
 * <pre>{@code
 * try (NpyReader r = NpyReader.open(path, DType.F32)) {
 *     Storage chunk = r.allocate(1 << 16);
 *     ByteBuffer buf = r.buffer(1 << 16);
 *     r.read(0, 1 << 16, chunk, buf);   // elements [0, 65536)
 * }
 * }</pre>
 */
public final class NpyReader implements AutoCloseable {
    private final String name;
    private final FileChannel channel;
    private final NpyFormat.Header header;

    private NpyReader(String name, FileChannel channel, NpyFormat.Header header) {
        this.name = name;
        this.channel = channel;
        this.header = header;
    }

    /**
     * Opens {@code file} and checks its header; {@code declared} (or null) as in
     * {@link Npy#read(Path, DType)}: it tells an e4m3 file from an e5m2 one.
     */
    public static NpyReader open(Path file, DType declared) throws TensorFileException {
        String name = file.toString();
        Npy.requireRegularFile(file, name);
        FileChannel ch = null;
        try {
            ch = FileChannel.open(file, StandardOpenOption.READ);
            return new NpyReader(name, ch, Npy.header(ch, name, declared));
        } catch (NoSuchFileException e) {
            throw new TensorFileException(name + ": no such file.", e);
        } catch (IOException e) {
            closeQuietly(ch);
            throw new TensorFileException(name + ": cannot be read: " + IoMessages.describe(e), e);
        } catch (TensorFileException e) {
            closeQuietly(ch);
            throw e;
        }
    }

    /** What the header says. */
    public NpyHeader header() {
        return new NpyHeader(header.dtype(), header.f64(), header.shape(), header.dataBytes());
    }

    public long elements() {
        return header.shape().elementCount();
    }

    /** Bytes per element in the file (and in {@link #allocate}'s storage). */
    public int width() {
        return header.f64() ? 8 : header.dtype().byteSize();
    }

    /** Zeroed storage of the kind this file's elements are kept in, for {@code n} of them: a buffer to read into. */
    public Storage allocate(int n) {
        return header.f64() ? new Storage.Doubles(new double[n]) : Storage.allocate(header.dtype(), n);
    }

    /** A byte buffer for reads of up to {@code n} elements (direct: the kernel copies into it without a bounce buffer). */
    public ByteBuffer buffer(int n) {
        return ByteBuffer.allocateDirect(Math.multiplyExact(n, width())).order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * Reads elements {@code [from, from + count)} into {@code dst[0, count)}, through {@code buf}
     * (from {@link #buffer}, with room for {@code count}). Safe to call from several threads at
     * once with different buffers.
     *
     * @throws TensorFileException when the file cannot be read or has become shorter since it was opened
     */
    public void read(long from, int count, Storage dst, ByteBuffer buf) throws TensorFileException {
        int width = width();
        if (from < 0 || count < 0 || from + count > elements() || dst.length() < count || buf.capacity() < (long) count * width) {
            throw new IllegalArgumentException("elements [" + from + ", " + (from + count) + ") of " + elements()
                    + " into storage of " + dst.length() + " through " + buf.capacity() + " bytes");
        }
        long at = header.dataStart() + from * width;
        buf.clear().limit(count * width);
        try {
            while (buf.hasRemaining()) {
                if (channel.read(buf, at + buf.position()) < 0) {
                    throw new TensorFileException(name + ": truncated while reading the data (the file became shorter after it was opened).");
                }
            }
        } catch (IOException e) {
            throw new TensorFileException(name + ": cannot be read: " + IoMessages.describe(e), e);
        }
        buf.flip();
        Storage.readLittleEndianInto(buf.order(ByteOrder.LITTLE_ENDIAN), dst, 0, count);
    }

    @Override
    public void close() {
        closeQuietly(channel);
    }

    /** A read-only channel that fails to close has lost nothing: the failure is not worth a message. */
    private static void closeQuietly(FileChannel ch) {
        if (ch == null) {
            return;
        }
        try {
            ch.close();
        } catch (IOException ignored) {
            // nothing was written through it
        }
    }

    @Override
    public String toString() {
        return "NpyReader[" + name + "]";
    }
}
