package org.stagecheck.tensor.safetensors;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.SequencedMap;

import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.IoMessages;
import org.stagecheck.tensor.npy.TensorFileException;

/**
 * One safetensors file opened for reading: 8 bytes little-endian header length {@code N}, {@code N}
 * bytes of UTF-8 JSON header, then the data region, whose offsets the header gives relative to
 * byte {@code 8 + N}. {@link #open} reads and checks the header (never more than
 * {@link #MAX_HEADER_BYTES}, never past the file); each {@link #read} maps the bytes of its one
 * tensor read-only, copies them out in bulk and unmaps them, so that a process reading a whole
 * checkpoint never has more of the file mapped than its largest tensor (the pages of a mapping
 * count in its resident set; read so, the checkpoint's pages stay in the page cache alone).
 *
 * <p>Threads: each read maps its own tensor, so several threads may read tensors at once.
 * {@link #close} closes the file; it must not run while a read is under way, and a read after it is refused.
 */
public final class SafetensorsFile implements AutoCloseable {
    /** The longest header read; the reference implementation's limit is 100 MB, real headers are kilobytes. */
    public static final long MAX_HEADER_BYTES = 32L << 20;

    private final Path path;
    private final String name;
    private final long fileBytes;
    private final long dataStart;
    private final String headerSha256;
    private final SequencedMap<String, SafetensorsEntry> entries;
    private final Map<String, String> metadata;
    private final FileChannel channel;

    private SafetensorsFile(Path path, long fileBytes, long dataStart, String headerSha256, HeaderParser.Parsed parsed,
            FileChannel channel) {
        this.path = path;
        this.name = path.toString();
        this.fileBytes = fileBytes;
        this.dataStart = dataStart;
        this.headerSha256 = headerSha256;
        this.entries = parsed.entries();
        this.metadata = parsed.metadata();
        this.channel = channel;
    }

    /** Opens {@code file} and checks its header; every problem is a {@link TensorFileException} naming the file. */
    public static SafetensorsFile open(Path file) throws TensorFileException {
        String name = file.toString();
        if (Files.isDirectory(file)) {
            throw new TensorFileException(name + ": is a directory, not a safetensors file.");
        }
        if (Files.exists(file) && !Files.isRegularFile(file)) {
            throw new TensorFileException(name + ": is not a regular file (a pipe, device or socket); write it to a file first.");
        }
        FileChannel ch = null;
        try {
            ch = FileChannel.open(file, StandardOpenOption.READ);
            long size = ch.size();
            if (size < 8) {
                throw new TensorFileException(name + ": is " + size + " bytes, shorter than the 8-byte header length that starts a safetensors file (truncated?)");
            }
            long n = readFully(ch, 0, 8, name).order(ByteOrder.LITTLE_ENDIAN).getLong();
            if (Long.compareUnsigned(n, MAX_HEADER_BYTES) > 0) {
                throw new TensorFileException(name + ": byte 0: the header length " + Long.toUnsignedString(n)
                        + " is over the limit of " + MAX_HEADER_BYTES + " bytes (not a safetensors file?)");
            }
            if (n > size - 8) {
                throw new TensorFileException(name + ": byte 0: the header length " + n + " runs past the end of the file, which has "
                        + size + " bytes (truncated?)");
            }
            byte[] header = new byte[(int) n];
            readFully(ch, 8, (int) n, name).get(header);
            String json;
            try {
                json = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(header)).toString();
            } catch (CharacterCodingException e) {
                throw new TensorFileException(name + ": the header (bytes 8 to " + (8 + n) + ") is not valid UTF-8");
            }
            long dataStart = 8 + n;
            HeaderParser.Parsed parsed = HeaderParser.parse(name, json, dataStart, size - dataStart);
            return new SafetensorsFile(file, size, dataStart, sha256(header), parsed, ch);
        } catch (NoSuchFileException e) {
            close(ch);
            throw new TensorFileException(name + ": no such file.", e);
        } catch (IOException e) {
            close(ch);
            throw new TensorFileException(name + ": cannot be read: " + IoMessages.describe(e), e);
        } catch (TensorFileException | RuntimeException e) {
            close(ch);
            throw e;
        }
    }

    /**
     * Opens the file {@code fileName} of directory {@code dir}: {@code fileName} must be a plain
     * name (no separator, not {@code .} or {@code ..}), and its real path, symbolic links resolved,
     * must lie inside the real path of {@code dir}; a link that leads out is refused, naming it.
     */
    public static SafetensorsFile open(Path dir, String fileName) throws TensorFileException {
        return open(Confinement.inside(dir, fileName));
    }

    private static ByteBuffer readFully(FileChannel ch, long at, int n, String name) throws IOException, TensorFileException {
        ByteBuffer b = ByteBuffer.allocate(n);
        while (b.hasRemaining()) {
            if (ch.read(b, at + b.position()) < 0) {
                throw new TensorFileException(name + ": truncated at byte " + (at + b.position()) + " while reading the header");
            }
        }
        return b.flip();
    }

    private static String sha256(byte[] bytes) {
        return HexFormat.of().formatHex(sha256().digest(bytes));
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK provides SHA-256", e);
        }
    }

    public Path path() {
        return path;
    }

    /** The file's size in bytes when it was opened. */
    public long fileBytes() {
        return fileBytes;
    }

    /** Where the data region starts: 8 plus the header length. */
    public long dataStart() {
        return dataStart;
    }

    /** Hex SHA-256 of the header's bytes (the {@code N} bytes after the length): names, dtypes, shapes and offsets. */
    public String headerSha256() {
        return headerSha256;
    }

    /**
     * Hex SHA-256 of the data region (every byte after the header), read through the mapping:
     * changes whenever a value does, which the size and the header alone do not show (a
     * checkpoint retrained and written over with the same shapes). Reads the whole file.
     */
    public String dataSha256() throws TensorFileException {
        MessageDigest digest = sha256();
        long size = fileBytes - dataStart;
        ByteBuffer chunk = ByteBuffer.allocate((int) DIGEST_CHUNK_BYTES);
        try {
            // read in chunks through the channel: nothing stays mapped or resident for the whole file
            for (long at = 0; at < size; ) {
                chunk.clear().limit((int) Math.min(DIGEST_CHUNK_BYTES, size - at));
                while (chunk.hasRemaining()) {
                    if (channel.read(chunk, dataStart + at + chunk.position()) < 0) {
                        throw new TensorFileException(path + ": truncated at byte " + (dataStart + at + chunk.position())
                                + " while its data was being read");
                    }
                }
                digest.update(chunk.flip());
                at += chunk.limit();
            }
        } catch (IOException e) {
            throw new TensorFileException(path + ": cannot be read: " + IoMessages.describe(e), e);
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    private static final long DIGEST_CHUNK_BYTES = 1L << 24;

    /** The tensors in header order (unmodifiable). */
    public SequencedMap<String, SafetensorsEntry> entries() {
        return entries;
    }

    /** {@code __metadata__} (empty when absent; unmodifiable). */
    public Map<String, String> metadata() {
        return metadata;
    }

    /** The entry called {@code tensor}, or null. */
    public SafetensorsEntry entry(String tensor) {
        return entries.get(tensor);
    }

    /** The tensor {@code tensor}, bit for bit, in the shape it is stored in. */
    public Tensor read(String tensor) throws TensorFileException {
        SafetensorsEntry e = readable(tensor);
        Shape shape = shape(e);
        try (Arena arena = Arena.ofConfined()) {
            return MappedReads.copy(name, map(e, arena), 0, e, shape);
        }
    }

    /**
     * The rank-2 tensor {@code tensor}, stored {@code [r, c]}, as {@code [c, r]}: torch keeps a
     * linear weight {@code [out, in]}, stagecheck {@code [in, out]}.
     */
    public Tensor readTransposed(String tensor) throws TensorFileException {
        SafetensorsEntry e = readable(tensor);
        if (e.rank() != 2) {
            throw new TensorFileException(name + ": tensor '" + tensor + "' has shape " + e.shape() + ", not two dimensions; only a matrix is read transposed");
        }
        Shape stored = shape(e);
        try (Arena arena = Arena.ofConfined()) {
            return MappedReads.copyTransposed(name, map(e, arena), 0, e, stored);
        }
    }

    /**
     * Rows {@code [r0, r1)} and columns {@code [c0, c1)} of the rank-2 tensor {@code tensor}, as
     * stored or ({@code transposed}) as {@code [c1 - c0, r1 - r0]}: the bits {@link #read} or
     * {@link #readTransposed} followed by that slice give, without reading (or holding) the rest.
     * One chip's share of a split weight is read so.
     */
    public Tensor readBlock(String tensor, int r0, int r1, int c0, int c1, boolean transposed) throws TensorFileException {
        SafetensorsEntry e = readable(tensor);
        if (e.rank() != 2) {
            throw new TensorFileException(name + ": tensor '" + tensor + "' has shape " + e.shape() + ", not two dimensions; only a matrix is read in blocks");
        }
        Shape stored = shape(e);
        if (r0 < 0 || r1 <= r0 || r1 > stored.dim(0) || c0 < 0 || c1 <= c0 || c1 > stored.dim(1)) {
            throw new TensorFileException(name + ": tensor '" + tensor + "' has shape " + e.shape() + "; rows [" + r0 + ", " + r1
                    + ") and columns [" + c0 + ", " + c1 + ") do not fit it");
        }
        try (Arena arena = Arena.ofConfined()) {
            return MappedReads.copyBlock(name, map(e, arena), 0, e, stored, r0, r1, c0, c1, transposed);
        }
    }

    /** The bytes of {@code e}, mapped read-only until {@code arena} closes. */
    private MemorySegment map(SafetensorsEntry e, Arena arena) throws TensorFileException {
        long bytes = e.end() - e.begin();
        if (bytes == 0) {
            return MemorySegment.ofArray(new byte[0]);
        }
        try {
            return channel.map(FileChannel.MapMode.READ_ONLY, dataStart + e.begin(), bytes, arena);
        } catch (IOException x) {
            throw new TensorFileException(name + ": tensor '" + e.name() + "' cannot be mapped: " + IoMessages.describe(x), x);
        }
    }

    private SafetensorsEntry readable(String tensor) throws TensorFileException {
        SafetensorsEntry e = entries.get(tensor);
        if (e == null) {
            throw new TensorFileException(name + ": has no tensor '" + tensor + "'");
        }
        if (e.dtype() == null) {
            throw new TensorFileException(name + ": tensor '" + tensor + "' is " + e.dtypeName()
                    + "; stagecheck reads f32, bf16 and f16 weights");
        }
        if (e.elementCount() > Tensor.MAX_ELEMENTS) {
            throw new TensorFileException(name + ": tensor '" + tensor + "' has " + e.elementCount()
                    + " elements, more than the " + Tensor.MAX_ELEMENTS + " stagecheck holds in one tensor");
        }
        if (e.rank() > Shape.MAX_RANK) {
            throw new TensorFileException(name + ": tensor '" + tensor + "' has " + e.rank() + " dimensions, more than " + Shape.MAX_RANK);
        }
        if (!channel.isOpen()) {
            throw new TensorFileException(name + ": is closed; tensor '" + tensor + "' cannot be read");
        }
        try {
            if (channel.size() < dataStart + e.end()) {
                throw new TensorFileException(name + ": became shorter since it was opened (now " + channel.size()
                        + " bytes); tensor '" + tensor + "' ends at byte " + (dataStart + e.end()));
            }
        } catch (IOException x) {
            throw new TensorFileException(name + ": cannot be read: " + IoMessages.describe(x), x);
        }
        return e;
    }

    private Shape shape(SafetensorsEntry e) throws TensorFileException {
        int[] dims = new int[e.rank()];
        for (int i = 0; i < dims.length; i++) {
            long d = e.shape().get(i);
            if (d > Integer.MAX_VALUE) {
                throw new TensorFileException(name + ": tensor '" + e.name() + "' has dimension " + d + ", more than stagecheck's shapes hold");
            }
            dims[i] = (int) d;
        }
        return Shape.of(dims);
    }

    /** Closes the file (no mapping outlives the read that made it). */
    @Override
    public void close() {
        close(channel);
    }

    private static void close(FileChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // opened read-only: nothing to lose
            }
        }
    }

    @Override
    public String toString() {
        return "SafetensorsFile[" + name + "]";
    }
}
