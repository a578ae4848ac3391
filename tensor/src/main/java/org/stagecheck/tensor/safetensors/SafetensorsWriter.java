package org.stagecheck.tensor.safetensors;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.Set;

import org.stagecheck.tensor.Storage;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.io.WriterTemp;

/**
 * Writes safetensors files as {@code save_file} does: the header (tensors in the order given,
 * data offsets in that order, padded with spaces so that the data starts at a multiple of 8),
 * then each tensor's little-endian bytes. Every file is written beside its final name as
 * {@code .<name>.stagecheck-tmp} and moved over it when complete, so a failure leaves no
 * half-written file.
 *
 * <p>One code path serves both uses: the tensors are declared first ({@link TensorSpec}) and a
 * {@link TensorSource} gives each one's values only when it is written, so a checkpoint of
 * gigabytes is written holding one tensor at a time; the map forms are that with the map as
 * source.
 */
public final class SafetensorsWriter {
    /** The file of an unsharded checkpoint. */
    public static final String SINGLE_FILE = "model.safetensors";
    /** The index of a sharded checkpoint. */
    public static final String INDEX_FILE = "model.safetensors.index.json";

    private static final int CHUNK_BYTES = 1 << 20;

    private SafetensorsWriter() {
    }

    /** Writes {@code tensors} (F32, BF16 or F16) in map order, with {@code metadata} as {@code __metadata__} when not empty. */
    public static void write(Path file, SequencedMap<String, Tensor> tensors, Map<String, String> metadata) throws IOException {
        write(file, specsOf(tensors), metadata, spec -> tensors.get(spec.name()));
    }

    /** Writes the tensors {@code specs} declares, asking {@code source} for each one's values in turn. */
    public static void write(Path file, List<TensorSpec> specs, Map<String, String> metadata, TensorSource source) throws IOException {
        byte[] header = header(specs, metadata);
        atomically(file, ch -> {
            writeFully(ch, ByteBuffer.wrap(header));
            ByteBuffer buf = ByteBuffer.allocateDirect(CHUNK_BYTES).order(ByteOrder.LITTLE_ENDIAN);
            for (TensorSpec spec : specs) {
                writeData(ch, checked(spec, source.tensor(spec)), buf);
            }
        });
    }

    /**
     * Writes {@code tensors} as shards of at most {@code maxShardBytes} bytes of data each (a
     * tensor larger than that gets a shard of its own), named {@code model-0000K-of-0000N.safetensors},
     * plus {@code model.safetensors.index.json}, always, even for one shard.
     */
    public static void writeSharded(Path dir, SequencedMap<String, Tensor> tensors, long maxShardBytes) throws IOException {
        writeSharded(dir, specsOf(tensors), maxShardBytes, spec -> tensors.get(spec.name()));
    }

    /** {@link #writeSharded(Path, SequencedMap, long)} asking {@code source} for each tensor's values in turn. */
    public static void writeSharded(Path dir, List<TensorSpec> specs, long maxShardBytes, TensorSource source) throws IOException {
        if (maxShardBytes <= 0) {
            throw new IllegalArgumentException("the largest shard must be a positive number of bytes, not " + maxShardBytes);
        }
        checkNames(specs);
        List<List<TensorSpec>> shards = shards(specs, maxShardBytes);
        Files.createDirectories(dir);
        long total = 0;
        ByteArrayOutputStream index = new ByteArrayOutputStream();
        try (JsonGenerator g = new JsonFactory().createGenerator(index)) {
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            for (TensorSpec s : specs) {
                total += s.byteLength();
            }
            g.writeObjectFieldStart("metadata");
            g.writeNumberField("total_size", total);
            g.writeEndObject();
            g.writeObjectFieldStart("weight_map");
            for (int k = 0; k < shards.size(); k++) {
                for (TensorSpec s : shards.get(k)) {
                    g.writeStringField(s.name(), shardName(k + 1, shards.size()));
                }
            }
            g.writeEndObject();
            g.writeEndObject();
        }
        for (int k = 0; k < shards.size(); k++) {
            write(dir.resolve(shardName(k + 1, shards.size())), shards.get(k), Map.of("format", "pt"), source);
        }
        // the index last: until it exists the shards are not a checkpoint
        index.write('\n');
        byte[] indexBytes = index.toByteArray();
        atomically(dir.resolve(INDEX_FILE), ch -> writeFully(ch, ByteBuffer.wrap(indexBytes)));
    }

    /** {@code model-0000K-of-0000N.safetensors} (1-based {@code k}, five digits). */
    public static String shardName(int k, int n) {
        return String.format("model-%05d-of-%05d.safetensors", k, n);
    }

    /** Consecutive runs of {@code specs}, each at most {@code maxShardBytes} unless one tensor alone is larger. */
    static List<List<TensorSpec>> shards(List<TensorSpec> specs, long maxShardBytes) {
        List<List<TensorSpec>> shards = new ArrayList<>();
        List<TensorSpec> current = new ArrayList<>();
        long bytes = 0;
        for (TensorSpec s : specs) {
            if (!current.isEmpty() && bytes + s.byteLength() > maxShardBytes) {
                shards.add(current);
                current = new ArrayList<>();
                bytes = 0;
            }
            current.add(s);
            bytes += s.byteLength();
        }
        if (!current.isEmpty() || shards.isEmpty()) {
            shards.add(current);
        }
        return shards;
    }

    private static List<TensorSpec> specsOf(SequencedMap<String, Tensor> tensors) {
        List<TensorSpec> specs = new ArrayList<>(tensors.size());
        for (Map.Entry<String, Tensor> e : tensors.entrySet()) {
            specs.add(new TensorSpec(e.getKey(), e.getValue().dtype(), e.getValue().shape()));
        }
        return specs;
    }

    private static void checkNames(List<TensorSpec> specs) {
        Set<String> seen = new HashSet<>();
        for (TensorSpec s : specs) {
            if (!seen.add(s.name())) {
                throw new IllegalArgumentException("tensor '" + s.name() + "' is declared twice");
            }
        }
    }

    /** The length-prefixed header: 8 bytes of length, then the JSON padded with spaces to a multiple of 8. */
    static byte[] header(List<TensorSpec> specs, Map<String, String> metadata) throws IOException {
        checkNames(specs);
        ByteArrayOutputStream json = new ByteArrayOutputStream();
        try (JsonGenerator g = new JsonFactory().createGenerator(json)) {
            g.writeStartObject();
            if (!metadata.isEmpty()) {
                g.writeObjectFieldStart(HeaderParser.METADATA);
                for (Map.Entry<String, String> m : metadata.entrySet()) {
                    g.writeStringField(m.getKey(), m.getValue());
                }
                g.writeEndObject();
            }
            long offset = 0;
            for (TensorSpec s : specs) {
                g.writeObjectFieldStart(s.name());
                g.writeStringField("dtype", SafetensorsDTypes.nameOf(s.dtype()));
                g.writeArrayFieldStart("shape");
                for (int d : s.shape().dims()) {
                    g.writeNumber(d);
                }
                g.writeEndArray();
                g.writeArrayFieldStart("data_offsets");
                g.writeNumber(offset);
                offset += s.byteLength();
                g.writeNumber(offset);
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndObject();
        }
        int n = json.size();
        int padded = n + (8 - (8 + n) % 8) % 8;
        ByteBuffer b = ByteBuffer.allocate(8 + padded).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(padded).put(json.toByteArray());
        while (b.hasRemaining()) {
            b.put((byte) ' ');
        }
        return b.array();
    }

    private static Tensor checked(TensorSpec spec, Tensor t) {
        if (t == null || t.dtype() != spec.dtype() || !t.shape().equals(spec.shape()) || t.isFloat64()) {
            throw new IllegalArgumentException("tensor '" + spec.name() + "' was declared " + spec.dtype() + " " + spec.shape()
                    + " but its values are " + t);
        }
        return t;
    }

    private static void writeData(FileChannel ch, Tensor t, ByteBuffer buf) throws IOException {
        Storage storage = t.storage();
        int width = storage.width();
        int perChunk = buf.capacity() / width;
        for (int at = 0; at < storage.length(); at += perChunk) {
            int len = Math.min(perChunk, storage.length() - at);
            buf.clear();
            switch (storage) {
                case Storage.Floats f -> buf.asFloatBuffer().put(f.values(), at, len);
                case Storage.Bits16 b -> buf.asShortBuffer().put(b.bits(), at, len);
                case Storage.Bits8 b -> buf.put(b.bits(), at, len);
                case Storage.Ints i -> buf.asIntBuffer().put(i.values(), at, len);
                case Storage.Doubles d -> buf.asDoubleBuffer().put(d.values(), at, len);
            }
            buf.position(0).limit(len * width);
            writeFully(ch, buf);
        }
    }

    private static void writeFully(FileChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    private interface Body {
        void write(FileChannel ch) throws IOException;
    }

    /** Through this writer's own temporary beside {@code file}, renamed over it when complete ({@link WriterTemp}). */
    private static void atomically(Path file, Body body) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        try (WriterTemp tmp = WriterTemp.file(file)) {
            body.write(tmp.channel());
            tmp.moveTo(file);
        }
    }
}
