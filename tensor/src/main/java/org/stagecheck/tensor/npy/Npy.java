package org.stagecheck.tensor.npy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.io.WriterTemp;

/**
 * Tensors as numpy files (brief, "Golden cases": files numpy reads). Little-endian, C order.
 *
 * <table>
 * <caption>dtype to .npy descr</caption>
 * <tr><th>dtype</th><th>descr</th><th>numpy view</th></tr>
 * <tr><td>f32</td><td>{@code <f4}</td><td>float32</td></tr>
 * <tr><td>f16</td><td>{@code <f2}</td><td>float16</td></tr>
 * <tr><td>bf16</td><td>{@code <u2}</td><td>the raw bit patterns as uint16:
 *     {@code (a.astype(np.uint32) << 16).view(np.float32)} widens exactly, or
 *     {@code a.view(ml_dtypes.bfloat16)}</td></tr>
 * <tr><td>e4m3, e5m2</td><td>{@code |u1}</td><td>the raw 8-bit codes as uint8 ({@code a.view(ml_dtypes.float8_e4m3fn)}
 *     or {@code a.view(ml_dtypes.float8_e5m2)}); which of the two a file holds is the program's
 *     declaration, so reading one needs the declared dtype</td></tr>
 * <tr><td>i32</td><td>{@code <i4}</td><td>int32</td></tr>
 * <tr><td>float64-mode values</td><td>{@code <f8}</td><td>float64 (read back with nominal dtype f32)</td></tr>
 * </table>
 * Reading rejects truncated files, trailing bytes, unknown dtypes, Fortran order and data beyond
 * {@link #MAX_BYTES}; writing is atomic (temporary file, then move).
 */
public final class Npy {
    /** The largest data size read from one .npy (or one .npz member, or an .npz in total): 2 GiB. */
    public static final long MAX_BYTES = 1L << 31;
    /** The suffix of the temporary file a write goes through: {@code .<file>.stagecheck-tmp}. */
    public static final String TMP_SUFFIX = WriterTemp.SUFFIX;
    private static final int CHUNK_BYTES = 1 << 20;

    private Npy() {
    }

    /** Reads a .npy whose dtype its header says (a {@code |u1} file, which needs a declared dtype, is refused). */
    public static Tensor read(Path file) throws TensorFileException {
        return read(file, null);
    }

    /**
     * Reads a .npy; {@code declared} (or null) is the dtype the program declares for it, which
     * decides whether a {@code |u1} file holds e4m3 or e5m2 codes. Other dtypes come from the
     * header, and the caller compares them with the declaration.
     */
    public static Tensor read(Path file, org.stagecheck.spec.ir.DType declared) throws TensorFileException {
        String name = file.toString();
        requireRegularFile(file, name);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            NpyFormat.Header header = header(ch, name, declared);
            ch.position(header.dataStart());
            return NpyFormat.decode(header, ch, name, CHUNK_BYTES);
        } catch (NoSuchFileException e) {
            throw new TensorFileException(name + ": no such file.", e);
        } catch (IOException e) {
            throw new TensorFileException(name + ": cannot be read: " + IoMessages.describe(e), e);
        }
    }

    /**
     * The header of a .npy file, checked against the file's size (truncated or trailing data is
     * an error here already), without reading the data.
     */
    public static NpyHeader readHeader(Path file) throws TensorFileException {
        return readHeader(file, null);
    }

    /** As {@link #readHeader(Path)}; {@code declared} as in {@link #read(Path, org.stagecheck.spec.ir.DType)}. */
    public static NpyHeader readHeader(Path file, org.stagecheck.spec.ir.DType declared) throws TensorFileException {
        String name = file.toString();
        requireRegularFile(file, name);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            NpyFormat.Header h = header(ch, name, declared);
            return new NpyHeader(h.dtype(), h.f64(), h.shape(), h.dataBytes());
        } catch (NoSuchFileException e) {
            throw new TensorFileException(name + ": no such file.", e);
        } catch (IOException e) {
            throw new TensorFileException(name + ": cannot be read: " + IoMessages.describe(e), e);
        }
    }

    /**
     * Refuses what is not a regular file before it is opened: opening a pipe that has no writer
     * blocks for ever, and a device such as {@code /dev/zero} never ends. A missing file and a
     * link loop are left to the open, which names them.
     */
    static void requireRegularFile(Path file, String name) throws TensorFileException {
        if (Files.exists(file) && !Files.isRegularFile(file)) {
            throw new TensorFileException(name + (Files.isDirectory(file) ? ": is a directory, not a .npy file."
                    : ": is not a regular file (a pipe, device or socket); write it to a file first."));
        }
    }

    static NpyFormat.Header header(FileChannel ch, String name, org.stagecheck.spec.ir.DType declared)
            throws IOException, TensorFileException {
        long size = ch.size();
        ByteBuffer head = ByteBuffer.allocate((int) Math.min(size, 12 + (1 << 16)));
        while (head.hasRemaining() && ch.read(head) > 0) {
            // fill what the header can need
        }
        byte[] h = java.util.Arrays.copyOf(head.array(), head.position());
        return NpyFormat.header(h, size, name, MAX_BYTES, declared);
    }

    /**
     * Writes {@code t} as .npy v1.0 (v2.0 for a header over 64 KiB), atomically: into
     * {@code .<file>.stagecheck-tmp} beside it (a name a rerun replaces), then moved over
     * {@code file}. Files are created with the process's umask. The data is streamed, so a tensor
     * of more than 2 GiB is written too (though {@link #read} refuses it).
     */
    public static void write(Path file, Tensor t) throws IOException {
        byte[] head = NpyFormat.headerBytes(t);
        atomically(file, out -> {
            out.write(head);
            NpyFormat.writeData(t, out, CHUNK_BYTES);
        });
    }

    /**
     * Everything a .npy of {@code dtype} and {@code shape} holds before its data (magic, version,
     * padded header): what a writer that streams the data itself (the comparison bench, which
     * writes gigabytes it never holds whole) puts first. {@code float64} for {@code <f8} data.
     */
    public static byte[] headerBytes(org.stagecheck.spec.ir.DType dtype, org.stagecheck.spec.ir.Shape shape, boolean float64) {
        return NpyFormat.headerBytes(float64 ? "<f8" : NpyFormat.descr(dtype), shape);
    }

    /** Every member {@code NAME.npy} of an .npz (stored or deflated), by NAME, in archive order. */
    public static Map<String, Tensor> readNpz(Path file) throws TensorFileException {
        return readNpz(file, member -> null);
    }

    /**
     * As {@link #readNpz(Path)}; {@code declared} gives each member's declared dtype (or null), as in
     * {@link #read(Path, org.stagecheck.spec.ir.DType)}. A file that is not a zip archive is refused
     * (not read as an empty archive); each member's size comes from its own .npy header, checked
     * against the limit and the memory left before anything is allocated, so an archive that
     * inflates to more than its header says (a zip bomb) is refused after reading at most that much.
     */
    public static Map<String, Tensor> readNpz(Path file, java.util.function.Function<String, org.stagecheck.spec.ir.DType> declared) throws TensorFileException {
        String name = file.toString();
        requireRegularFile(file, name);
        Map<String, Tensor> out = new LinkedHashMap<>();
        long total = 0;
        try (InputStream in = new java.io.BufferedInputStream(Files.newInputStream(file)); ZipInputStream zip = new ZipInputStream(in)) {
            in.mark(4);
            byte[] magic = in.readNBytes(4);
            in.reset();
            if (magic.length < 4 || magic[0] != 'P' || magic[1] != 'K' || !(magic[2] == 3 && magic[3] == 4 || magic[2] == 5 && magic[3] == 6)) {
                throw new TensorFileException(name + ": not a .npz archive (a zip file starts with PK).");
            }
            ZipEntry e;
            while ((e = zip.getNextEntry()) != null) {
                String member = e.getName();
                if (!member.endsWith(".npy")) {
                    throw new TensorFileException(name + ": member '" + member + "' is not a .npy file.");
                }
                String where = name + "!" + member;
                String key = member.substring(0, member.length() - 4);
                byte[] head = zip.readNBytes(12 + (1 << 16));
                NpyFormat.Header h = NpyFormat.parse(head, where, MAX_BYTES, declared.apply(key));
                long size = h.dataStart() + h.dataBytes();
                total += size;
                if (total > MAX_BYTES) {
                    throw new TensorFileException(name + ": the archive's members exceed the limit of " + MAX_BYTES + " bytes.");
                }
                requireMemory(where, size);
                byte[] bytes = java.util.Arrays.copyOf(head, (int) Math.max(size, head.length));
                int got = head.length + zip.readNBytes(bytes, head.length, bytes.length - head.length);
                long seen = got > size || zip.read() < 0 ? got : got + 1; // a byte past the data is "inconsistent"
                h = NpyFormat.header(bytes, seen, where, MAX_BYTES, declared.apply(key));
                if (out.put(key, NpyFormat.decode(h, ByteBuffer.wrap(bytes, h.dataStart(), (int) h.dataBytes()).slice())) != null) {
                    throw new TensorFileException(name + ": member '" + member + "' appears twice.");
                }
            }
        } catch (NoSuchFileException e) {
            throw new TensorFileException(name + ": no such file.", e);
        } catch (IOException e) {
            throw new TensorFileException(name + ": not a readable .npz archive: " + e.getMessage(), e);
        }
        return out;
    }

    /** Refuses to allocate {@code bytes} for a member when the heap has not that much left. */
    private static void requireMemory(String where, long bytes) throws TensorFileException {
        Runtime rt = Runtime.getRuntime();
        long left = rt.maxMemory() - (rt.totalMemory() - rt.freeMemory());
        if (bytes > left) {
            throw new TensorFileException(where + ": " + bytes + " bytes do not fit in the " + (left >> 20)
                    + " MiB this JVM has left (give more with -Xmx).");
        }
    }

    /** Writes each tensor as member {@code NAME.npy}, stored uncompressed like {@code np.savez}, atomically. */
    public static void writeNpz(Path file, Map<String, Tensor> tensors) throws IOException {
        atomically(file, raw -> {
            try (ZipOutputStream zip = new ZipOutputStream(raw)) {
                for (Map.Entry<String, Tensor> t : tensors.entrySet()) {
                    byte[] bytes = NpyFormat.encode(t.getValue());
                    ZipEntry e = new ZipEntry(t.getKey() + ".npy");
                    e.setMethod(ZipEntry.STORED);
                    e.setSize(bytes.length);
                    e.setCompressedSize(bytes.length);
                    CRC32 crc = new CRC32();
                    crc.update(bytes);
                    e.setCrc(crc.getValue());
                    e.setTime(315532800000L); // 1980-01-01: the bytes depend only on the tensors
                    zip.putNextEntry(e);
                    zip.write(bytes);
                    zip.closeEntry();
                }
                zip.finish();
            }
        });
    }

    private interface Writer {
        void write(OutputStream out) throws IOException;
    }

    /** Through this writer's own temporary beside {@code file}, renamed over it when complete ({@link WriterTemp}). */
    private static void atomically(Path file, Writer w) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        try (WriterTemp tmp = WriterTemp.file(file)) {
            try (OutputStream out = tmp.stream()) {
                w.write(out);
            }
            tmp.moveTo(file);
        }
    }
}
