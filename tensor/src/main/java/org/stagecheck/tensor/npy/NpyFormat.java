package org.stagecheck.tensor.npy;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.stagecheck.tensor.Storage;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;

/**
 * Encoding and decoding of one .npy image in memory (numpy's format, versions 1.0, 2.0 and 3.0
 * read; 1.0 written, 2.0 when the header is too long for 1.0). See {@link Npy} for the dtype table.
 */
final class NpyFormat {
    private static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y'};
    private static final int MAX_HEADER = 1 << 16;
    private static final Pattern DESCR = Pattern.compile("['\"]descr['\"]\\s*:\\s*['\"]([^'\"]*)['\"]");
    private static final Pattern FORTRAN = Pattern.compile("['\"]fortran_order['\"]\\s*:\\s*(True|False)");
    private static final Pattern SHAPE = Pattern.compile("['\"]shape['\"]\\s*:\\s*\\(([^)]*)\\)");

    private NpyFormat() {
    }

    static String descr(Tensor t) {
        return t.isFloat64() ? "<f8" : descr(t.dtype());
    }

    /** The descr of {@code dtype}'s own storage (not float64 mode). */
    static String descr(DType dtype) {
        return switch (dtype) {
            case F32 -> "<f4";
            case F16 -> "<f2";
            case BF16 -> "<u2";
            case E4M3, E5M2 -> "|u1";
            case I32 -> "<i4";
        };
    }

    static byte[] encode(Tensor t) {
        byte[] head = headerBytes(t);
        byte[] data = t.littleEndianBytes();
        byte[] all = java.util.Arrays.copyOf(head, head.length + data.length);
        System.arraycopy(data, 0, all, head.length, data.length);
        return all;
    }

    /** Magic, version, header length and the padded header dict of {@code t}: everything before its data. */
    static byte[] headerBytes(Tensor t) {
        return headerBytes(descr(t), t.shape());
    }

    /** As {@link #headerBytes(Tensor)} for data of {@code descr} and {@code dims}. */
    static byte[] headerBytes(String descr, Shape dims) {
        StringBuilder shape = new StringBuilder("(");
        for (int d : dims.dims()) {
            shape.append(d).append(", ");
        }
        if (dims.rank() > 1) {
            shape.setLength(shape.length() - 2);
        } else if (dims.rank() == 1) {
            shape.setLength(shape.length() - 1);
        }
        shape.append(")");
        String dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
        int prefix = 10;
        int total = prefix + dict.length() + 1;
        boolean v2 = false;
        if (((total + 63) / 64) * 64 - prefix > 65535) {
            v2 = true;
            prefix = 12;
            total = prefix + dict.length() + 1;
        }
        int padded = ((total + 63) / 64) * 64;
        String header = dict + " ".repeat(padded - total) + "\n";
        ByteBuffer b = ByteBuffer.allocate(prefix + header.length()).order(ByteOrder.LITTLE_ENDIAN);
        b.put(MAGIC).put((byte) (v2 ? 2 : 1)).put((byte) 0);
        if (v2) {
            b.putInt(header.length());
        } else {
            b.putShort((short) header.length());
        }
        b.put(header.getBytes(StandardCharsets.US_ASCII));
        return b.array();
    }

    /** The header of an image: dtype, shape, where the data starts. */
    record Header(String descr, DType dtype, boolean f64, Shape shape, int dataStart, long dataBytes) {}

    /**
     * Parses the header. {@code declared} is the dtype the reader expects (or null): it decides
     * which 8-bit float a {@code |u1} file holds, since numpy has no type for either.
     */
    static Header header(byte[] head, long fileSize, String name, long maxBytes, DType declared) throws TensorFileException {
        Header h = parse(head, name, maxBytes, declared);
        long expected = h.dataStart() + h.dataBytes();
        if (fileSize < expected) {
            throw new TensorFileException(name + ": truncated: shape " + h.shape() + " of " + h.descr() + " needs " + h.dataBytes()
                    + " data bytes but only " + (fileSize - h.dataStart()) + " are present.");
        }
        if (fileSize > expected) {
            throw new TensorFileException(name + ": inconsistent: " + (fileSize - expected) + " bytes follow the data of shape " + h.shape() + ".");
        }
        return h;
    }

    /**
     * The header alone, from the first bytes of an image ({@code head}: at least the whole header,
     * possibly some data), without the size checks against the whole image that {@link #header} adds.
     */
    static Header parse(byte[] head, String name, long maxBytes, DType declared) throws TensorFileException {
        if (head.length < 10) {
            throw new TensorFileException(name + ": truncated: " + head.length + " bytes is too short for a .npy header.");
        }
        for (int i = 0; i < MAGIC.length; i++) {
            if (head[i] != MAGIC[i]) {
                throw new TensorFileException(name + ": not a .npy file (the magic string \\x93NUMPY is missing).");
            }
        }
        int major = head[6] & 0xFF;
        ByteBuffer b = ByteBuffer.wrap(head).order(ByteOrder.LITTLE_ENDIAN);
        int prefix;
        long hlen;
        if (major == 1) {
            prefix = 10;
            hlen = b.getShort(8) & 0xFFFF;
        } else if (major == 2 || major == 3) {
            if (head.length < 12) {
                throw new TensorFileException(name + ": truncated inside the .npy header.");
            }
            prefix = 12;
            hlen = b.getInt(8) & 0xFFFFFFFFL;
        } else {
            throw new TensorFileException(name + ": .npy format version " + major + "." + (head[7] & 0xFF) + " is not supported (1.0, 2.0, 3.0 are).");
        }
        if (hlen > MAX_HEADER) {
            throw new TensorFileException(name + ": the .npy header claims " + hlen + " bytes, more than the limit " + MAX_HEADER + ".");
        }
        if (prefix + hlen > head.length) {
            throw new TensorFileException(name + ": truncated inside the .npy header (" + (prefix + hlen) + " bytes expected, " + head.length + " present).");
        }
        String dict = new String(head, prefix, (int) hlen, major == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
        Matcher d = DESCR.matcher(dict);
        Matcher f = FORTRAN.matcher(dict);
        Matcher s = SHAPE.matcher(dict);
        if (!d.find() || !f.find() || !s.find()) {
            throw new TensorFileException(name + ": the .npy header lacks descr, fortran_order or shape: " + dict.strip());
        }
        // numpy's header is a dict of exactly these three keys; anything else (another key, a key
        // given twice with another value, text outside the braces) is a file numpy would not write
        String rest = dict.replace(d.group(), "").replace(f.group(), "").replace(s.group(), "");
        if (!rest.matches("\\s*\\{[\\s,]*}[\\s\\x00]*")) {
            throw new TensorFileException(name + ": the .npy header is not numpy's dict of descr, fortran_order and shape: " + dict.strip());
        }
        if (f.group(1).equals("True")) {
            throw new TensorFileException(name + ": Fortran-order arrays are not supported; save with np.ascontiguousarray.");
        }
        String descr = d.group(1);
        DType dtype;
        boolean f64 = false;
        switch (descr) {
            case "<f4" -> dtype = DType.F32;
            case "<f2" -> dtype = DType.F16;
            case "<u2" -> dtype = DType.BF16;
            case "<i4" -> dtype = DType.I32;
            case "|u1", "<u1", ">u1" -> {
                if (declared != DType.E4M3 && declared != DType.E5M2) {
                    throw new TensorFileException(name + ": uint8 data holds the codes of an 8-bit float (e4m3 or e5m2), but "
                            + (declared == null ? "no dtype was declared for it" : "the program declares " + declared) + ".");
                }
                dtype = declared;
            }
            case "<f8" -> {
                dtype = DType.F32;
                f64 = true;
            }
            // the file's descr string: any other dtype is bad input
            default -> throw new TensorFileException(name + ": dtype '" + descr
                    + "' is not supported (<f4 f32, <f2 f16, <u2 bf16 bit patterns, |u1 e4m3/e5m2 codes, <i4 i32, <f8 float64-mode values).");
        }
        List<Integer> dims = new ArrayList<>();
        for (String part : s.group(1).split(",")) {
            String p = part.strip();
            if (p.isEmpty()) {
                continue;
            }
            try {
                long v = Long.parseLong(p.endsWith("L") ? p.substring(0, p.length() - 1) : p);
                if (v < 0 || v > Integer.MAX_VALUE) {
                    throw new TensorFileException(name + ": shape dimension " + p + " is out of range.");
                }
                dims.add((int) v);
            } catch (NumberFormatException e) {
                throw new TensorFileException(name + ": shape '(" + s.group(1) + ")' is not a tuple of integers.");
            }
        }
        Shape shape;
        long count;
        try {
            shape = new Shape(dims);
            count = shape.elementCount();
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new TensorFileException(name + ": shape " + dims + " is not usable: " + e.getMessage());
        }
        int width = f64 ? 8 : dtype.byteSize();
        if (count > Tensor.MAX_ELEMENTS || count > maxBytes / width) {
            throw new TensorFileException(name + ": " + count + " elements of " + descr + " exceed the limit of " + maxBytes + " bytes.");
        }
        long dataBytes = count * width;
        return new Header(descr, dtype, f64, shape, (int) (prefix + hlen), dataBytes);
    }

    static Tensor decode(Header h, ByteBuffer data) {
        ByteBuffer b = data.order(ByteOrder.LITTLE_ENDIAN);
        int n = (int) h.shape().elementCount();
        Storage kind = h.f64() ? new Storage.Doubles(new double[0]) : Storage.allocate(h.dtype(), 0);
        return Tensor.wrap(h.dtype(), h.shape(), Storage.readLittleEndian(kind, b, n));
    }

    /**
     * The data of {@code h} read from {@code ch} (positioned at the data) in chunks of
     * {@code chunkBytes}, straight into the tensor's storage: no buffer of the data's whole size,
     * so data of exactly 2 GiB needs no int-sized buffer.
     */
    static Tensor decode(Header h, ReadableByteChannel ch, String name, int chunkBytes) throws IOException, TensorFileException {
        int n = (int) h.shape().elementCount();
        Storage all = h.f64() ? new Storage.Doubles(new double[n]) : Storage.allocate(h.dtype(), n);
        int width = all.width();
        ByteBuffer chunk = ByteBuffer.allocate(Math.max(8, chunkBytes - chunkBytes % 8)).order(ByteOrder.LITTLE_ENDIAN);
        int perChunk = chunk.capacity() / width;
        for (int at = 0; at < n; at += perChunk) {
            int count = Math.min(perChunk, n - at);
            chunk.clear().limit(count * width);
            while (chunk.hasRemaining()) {
                if (ch.read(chunk) < 0) {
                    throw new TensorFileException(name + ": truncated while reading the data.");
                }
            }
            chunk.flip();
            Storage part = Storage.readLittleEndian(all, chunk.order(ByteOrder.LITTLE_ENDIAN), count);
            Storage.copyBits(part, 0, all, at, count);
        }
        return Tensor.wrap(h.dtype(), h.shape(), all);
    }

    /** The data of {@code t}, little-endian, written in chunks of about {@code chunkBytes}. */
    static void writeData(Tensor t, OutputStream out, int chunkBytes) throws IOException {
        Storage all = t.storage();
        int n = all.length();
        int width = all.width();
        ByteBuffer chunk = ByteBuffer.allocate(Math.max(8, chunkBytes - chunkBytes % 8)).order(ByteOrder.LITTLE_ENDIAN);
        int perChunk = chunk.capacity() / width;
        for (int at = 0; at < n; at += perChunk) {
            int count = Math.min(perChunk, n - at);
            Storage part = all instanceof Storage.Doubles ? new Storage.Doubles(new double[count]) : Storage.allocate(t.dtype(), count);
            Storage.copyBits(all, at, part, 0, count);
            chunk.clear();
            part.putLittleEndian(chunk);
            out.write(chunk.array(), 0, count * width);
        }
    }
}
