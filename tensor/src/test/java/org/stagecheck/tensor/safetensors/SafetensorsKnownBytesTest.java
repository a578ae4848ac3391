package org.stagecheck.tensor.safetensors;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SequencedMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;

/** A 2x2 f32 tensor, byte for byte as the format description lays it out, read and written. */
class SafetensorsKnownBytesTest {
    @TempDir
    Path dir;

    /** The JSON is 57 bytes; 8 + 57 = 65, so 7 spaces pad the data to byte 72. */
    private static final String JSON = "{\"w\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]}}";

    private static byte[] expected() {
        assertThat(JSON.length()).isEqualTo(57);
        ByteBuffer b = ByteBuffer.allocate(72 + 16).order(ByteOrder.LITTLE_ENDIAN);
        b.put(new byte[] {64, 0, 0, 0, 0, 0, 0, 0}); // 64 = 57 + 7, little-endian u64
        b.put((JSON + "       ").getBytes(StandardCharsets.US_ASCII));
        // 1.0f = 0x3F800000, 2.0f = 0x40000000, -0.0f = 0x80000000, 0.5f = 0x3F000000, low byte first
        b.put(new byte[] {0, 0, (byte) 0x80, 0x3F, 0, 0, 0, 0x40, 0, 0, 0, (byte) 0x80, 0, 0, 0, 0x3F});
        return b.array();
    }

    @Test
    void aHandBuiltFileReadsAsItsBytesSay() throws Exception {
        Path f = Files.write(dir.resolve("w.safetensors"), expected());
        try (SafetensorsFile st = SafetensorsFile.open(f)) {
            assertThat(st.dataStart()).isEqualTo(72);
            assertThat(st.entries().keySet()).containsExactly("w");
            SafetensorsEntry e = st.entry("w");
            assertThat(e.dtypeName()).isEqualTo("F32");
            assertThat(e.dtype()).isEqualTo(DType.F32);
            assertThat(e.shape()).containsExactly(2L, 2L);
            assertThat(e.begin()).isZero();
            assertThat(e.end()).isEqualTo(16);
            Tensor t = st.read("w");
            assertThat(t.shape()).isEqualTo(Shape.of(2, 2));
            assertThat(t.toFloats()).containsExactly(1f, 2f, -0f, 0.5f);
            assertThat(Float.floatToRawIntBits(t.getFloat(2))).isEqualTo(0x80000000);
            Tensor tt = st.readTransposed("w");
            assertThat(tt.toFloats()).containsExactly(1f, -0f, 2f, 0.5f);
        }
    }

    @Test
    void theWriterWritesExactlyThoseBytes() throws Exception {
        SequencedMap<String, Tensor> m = new LinkedHashMap<>();
        m.put("w", Tensor.fromFloats(DType.F32, Shape.of(2, 2), new float[] {1f, 2f, -0f, 0.5f}));
        Path f = dir.resolve("out.safetensors");
        SafetensorsWriter.write(f, m, Map.of());
        assertThat(Files.readAllBytes(f)).isEqualTo(expected());
    }
}
