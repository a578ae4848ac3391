package org.stagecheck.author.oracle;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a Hugging Face model directory for tests: config.json and one {@code model.safetensors}
 * or {@code model-0000K-of-0000N.safetensors} shards with {@code model.safetensors.index.json}.
 * The header is padded with spaces to a multiple of 8 and the data is laid out in the reverse of
 * the header's order, as a reader must not assume they agree.
 */
public final class TestCheckpointWriter {
    private TestCheckpointWriter() {}

    public enum Dtype { F32, BF16, F16 }

    /** A tensor in torch's row-major layout. */
    public record Tensor64(int[] shape, double[] data) {
        public Tensor64 {
            long n = 1;
            for (int d : shape) {
                n *= d;
            }
            if (n != data.length) {
                throw new IllegalArgumentException(data.length + " values for shape " + java.util.Arrays.toString(shape));
            }
        }
    }

    public static void writeConfig(Path dir, Map<String, ?> config) {
        try {
            Files.createDirectories(dir);
            new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(dir.resolve("config.json").toFile(), config);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static void writeSingle(Path dir, Map<String, Tensor64> tensors, Dtype dtype) {
        writeFile(dir.resolve(HfCheckpoint64.SINGLE), tensors, dtype);
    }

    /** Deals the tensors round-robin into {@code shards} files and writes the index. */
    public static void writeSharded(Path dir, Map<String, Tensor64> tensors, Dtype dtype, int shards) {
        List<Map<String, Tensor64>> parts = new ArrayList<>();
        for (int s = 0; s < shards; s++) {
            parts.add(new LinkedHashMap<>());
        }
        Map<String, String> weightMap = new LinkedHashMap<>();
        int i = 0;
        for (Map.Entry<String, Tensor64> e : tensors.entrySet()) {
            int s = i++ % shards;
            String file = String.format("model-%05d-of-%05d.safetensors", s + 1, shards);
            parts.get(s).put(e.getKey(), e.getValue());
            weightMap.put(e.getKey(), file);
        }
        for (int s = 0; s < shards; s++) {
            writeFile(dir.resolve(String.format("model-%05d-of-%05d.safetensors", s + 1, shards)), parts.get(s), dtype);
        }
        Map<String, Object> index = new LinkedHashMap<>();
        index.put("metadata", Map.of("total_size", 0));
        index.put("weight_map", weightMap);
        try {
            new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(dir.resolve(HfCheckpoint64.INDEX).toFile(), index);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static void writeFile(Path file, Map<String, Tensor64> tensors, Dtype dtype) {
        int width = dtype == Dtype.F32 ? 4 : 2;
        Map<String, Object> header = new LinkedHashMap<>();
        header.put("__metadata__", Map.of("format", "pt"));
        List<String> names = new ArrayList<>(tensors.keySet());
        long end = 0;
        Map<String, long[]> offsets = new LinkedHashMap<>();
        for (String name : names.reversed()) {
            long begin = end;
            end += (long) tensors.get(name).data().length * width;
            offsets.put(name, new long[] {begin, end});
        }
        for (String name : names) {
            header.put(name, Map.of("dtype", dtype.name(), "shape", tensors.get(name).shape(), "data_offsets", offsets.get(name)));
        }
        try {
            byte[] json = new ObjectMapper().writeValueAsBytes(header);
            int padded = json.length + (8 - (8 + json.length) % 8) % 8;
            ByteBuffer b = ByteBuffer.allocate(Math.toIntExact(8 + padded + end)).order(ByteOrder.LITTLE_ENDIAN);
            b.putLong(padded).put(json);
            for (int i = json.length; i < padded; i++) {
                b.put((byte) ' ');
            }
            for (String name : names.reversed()) {
                for (double v : tensors.get(name).data()) {
                    putValue(b, dtype, v);
                }
            }
            Files.createDirectories(file.getParent());
            Files.write(file, b.array());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void putValue(ByteBuffer b, Dtype dtype, double v) {
        float f = (float) v;
        switch (dtype) {
            case F32 -> b.putFloat(f);
            case BF16 -> {
                int bits = Float.floatToRawIntBits(f);
                b.putShort((short) ((bits + 0x7FFF + ((bits >>> 16) & 1)) >>> 16));
            }
            case F16 -> b.putShort(Float.floatToFloat16(f));
        }
    }
}
