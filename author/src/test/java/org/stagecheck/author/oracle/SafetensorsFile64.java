package org.stagecheck.author.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * One safetensors file, read by itself: 8 bytes little-endian header length {@code N}, {@code N}
 * bytes of JSON header (trailing spaces allowed), then the data; offsets are relative to byte
 * {@code 8 + N}. Tensors are read on request and widened to double exactly (F64, F32, BF16, F16).
 */
final class SafetensorsFile64 {
    private static final long MAX_HEADER_BYTES = 100L << 20;

    private record Entry(String dtype, int[] shape, long begin, long end) {}

    private final Path path;
    private final long dataStart;
    private final Map<String, Entry> entries;

    private SafetensorsFile64(Path path, long dataStart, Map<String, Entry> entries) {
        this.path = path;
        this.dataStart = dataStart;
        this.entries = entries;
    }

    static SafetensorsFile64 open(Path path) {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size < 8) {
                throw new OracleInputException(path + ": " + size + " bytes, shorter than the 8-byte header length");
            }
            long n = readFully(ch, 0, 8).getLong();
            if (n < 2 || n > size - 8 || n > MAX_HEADER_BYTES) {
                throw new OracleInputException(path + ": header length " + Long.toUnsignedString(n) + " does not fit a file of " + size + " bytes");
            }
            ByteBuffer header = readFully(ch, 8, (int) n);
            JsonNode root;
            try {
                root = new ObjectMapper().readTree(header.array());
            } catch (IOException e) {
                throw new OracleInputException(path + ": header is not JSON: " + e.getMessage(), e);
            }
            if (root == null || !root.isObject()) {
                throw new OracleInputException(path + ": header is not a JSON object");
            }
            long dataLength = size - 8 - n;
            Map<String, Entry> entries = new LinkedHashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> f = it.next();
                if (!f.getKey().equals("__metadata__")) {
                    entries.put(f.getKey(), entry(path, f.getKey(), f.getValue(), dataLength));
                }
            }
            return new SafetensorsFile64(path, 8 + n, entries);
        } catch (IOException e) {
            throw new OracleInputException(path + ": cannot read: " + e.getMessage(), e);
        }
    }

    private static Entry entry(Path path, String name, JsonNode node, long dataLength) {
        String where = path + ": tensor " + name;
        JsonNode dtype = node.get("dtype");
        JsonNode shape = node.get("shape");
        JsonNode offsets = node.get("data_offsets");
        if (dtype == null || !dtype.isTextual() || shape == null || !shape.isArray() || offsets == null || !offsets.isArray() || offsets.size() != 2) {
            throw new OracleInputException(where + ": needs dtype, shape and data_offsets [begin, end]");
        }
        int[] dims = new int[shape.size()];
        long count = 1;
        for (int i = 0; i < dims.length; i++) {
            JsonNode d = shape.get(i);
            if (!d.canConvertToInt() || d.asInt() < 0) {
                throw new OracleInputException(where + ": shape " + shape + " has a bad dimension");
            }
            dims[i] = d.asInt();
            count = Math.multiplyExact(count, dims[i]);
        }
        long begin = offsets.get(0).asLong(-1);
        long end = offsets.get(1).asLong(-1);
        if (!offsets.get(0).canConvertToLong() || !offsets.get(1).canConvertToLong() || begin < 0 || end < begin || end > dataLength) {
            throw new OracleInputException(where + ": data_offsets " + offsets + " outside the " + dataLength + " data bytes");
        }
        int width = elementBytes(where, dtype.asText());
        if (end - begin != count * width) {
            throw new OracleInputException(where + ": " + (end - begin) + " data bytes for " + count + " elements of " + dtype.asText());
        }
        return new Entry(dtype.asText(), dims, begin, end);
    }

    private static int elementBytes(String where, String dtype) {
        return switch (dtype) {
            case "F64", "I64", "U64", "C64" -> 8;
            case "F32", "I32", "U32" -> 4;
            case "F16", "BF16", "I16", "U16" -> 2;
            case "I8", "U8", "BOOL", "F8_E4M3", "F8_E5M2", "F8_E4M3FNUZ", "F8_E5M2FNUZ" -> 1;
            default -> throw new OracleInputException(where + ": unknown dtype " + dtype);
        };
    }

    Path path() {
        return path;
    }

    Set<String> names() {
        return entries.keySet();
    }

    boolean has(String name) {
        return entries.containsKey(name);
    }

    int[] shape(String name) {
        return entry(name).shape().clone();
    }

    String dtype(String name) {
        return entry(name).dtype();
    }

    /** The tensor's elements in row-major order, each widened exactly to double. */
    double[] read(String name) {
        Entry e = entry(name);
        long bytes = e.end() - e.begin();
        if (bytes > Integer.MAX_VALUE) {
            throw new OracleInputException(path + ": tensor " + name + " has " + bytes + " bytes, more than this oracle reads at once");
        }
        ByteBuffer b;
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            b = readFully(ch, dataStart + e.begin(), (int) bytes);
        } catch (IOException x) {
            throw new OracleInputException(path + ": cannot read tensor " + name + ": " + x.getMessage(), x);
        }
        int n = (int) (bytes / elementBytes(name, e.dtype()));
        double[] out = new double[n];
        switch (e.dtype()) {
            case "F64" -> { for (int i = 0; i < n; i++) out[i] = b.getDouble(); }
            case "F32" -> { for (int i = 0; i < n; i++) out[i] = b.getFloat(); }
            case "BF16" -> { for (int i = 0; i < n; i++) out[i] = Float.intBitsToFloat((b.getShort() & 0xFFFF) << 16); }
            case "F16" -> { for (int i = 0; i < n; i++) out[i] = Float.float16ToFloat(b.getShort()); }
            default -> throw new OracleInputException(path + ": tensor " + name + " is " + e.dtype() + "; the oracle reads F64, F32, BF16 and F16 weights");
        }
        return out;
    }

    private Entry entry(String name) {
        Entry e = entries.get(name);
        if (e == null) {
            throw new OracleInputException(path + ": no tensor " + name);
        }
        return e;
    }

    private static ByteBuffer readFully(FileChannel ch, long at, int length) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        while (b.hasRemaining()) {
            if (ch.read(b, at + b.position()) < 0) {
                throw new IOException("file ends before byte " + (at + length));
            }
        }
        return b.flip();
    }
}
