package org.stagecheck.tensor.safetensors;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Safetensors files built by hand from the format description, for tests that must not trust the writer. */
final class StFiles {
    private StFiles() {
    }

    /** 8 bytes little-endian length of {@code header}'s UTF-8 bytes, the header, then {@code data}. */
    static byte[] image(String header, byte[] data) {
        byte[] h = header.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(8 + h.length + data.length).order(ByteOrder.LITTLE_ENDIAN)
                .putLong(h.length).put(h).put(data).array();
    }

    static Path write(Path dir, String name, String header, byte[] data) throws IOException {
        return Files.write(dir.resolve(name), image(header, data));
    }

    /** {@code n} little-endian f32 values 1, 2, 3, ... */
    static byte[] f32s(int n) {
        ByteBuffer b = ByteBuffer.allocate(4 * n).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i++) {
            b.putFloat(i + 1);
        }
        return b.array();
    }

    /** A header entry. */
    static String entry(String name, String dtype, String shape, long begin, long end) {
        return "\"" + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape + ",\"data_offsets\":[" + begin + "," + end + "]}";
    }
}
