package org.stagecheck.tensor.safetensors;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SequencedMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;

/** The data digest is the SHA-256 of the bytes after the header, and sees a changed value the size and header do not. */
class SafetensorsDataDigestTest {
    @TempDir
    Path tmp;

    @Test
    void theDigestCoversTheDataRegionAndChangesWithAValue() throws Exception {
        SequencedMap<String, Tensor> tensors = new LinkedHashMap<>();
        tensors.put("a", Tensor.wrapFloats(Shape.of(2, 3), new float[] {1, 2, 3, 4, 5, 6}));
        tensors.put("b", Tensor.wrapFloats(Shape.of(4), new float[] {7, 8, 9, 10}));
        Path file = tmp.resolve("model.safetensors");
        SafetensorsWriter.write(file, tensors, Map.of());
        byte[] bytes = Files.readAllBytes(file);
        int dataStart = 8 + (int) ByteBuffer.wrap(bytes, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        String expected = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Arrays.copyOfRange(bytes, dataStart, bytes.length)));
        String header;
        try (SafetensorsFile f = SafetensorsFile.open(file)) {
            assertThat(f.dataSha256()).isEqualTo(expected);
            header = f.headerSha256();
        }
        bytes[bytes.length - 1] ^= 1; // the last value of "b", one bit
        Files.write(file, bytes);
        try (SafetensorsFile f = SafetensorsFile.open(file)) {
            assertThat(f.headerSha256()).isEqualTo(header);
            assertThat(f.fileBytes()).isEqualTo(bytes.length);
            assertThat(f.dataSha256()).isNotEqualTo(expected);
        }
    }
}
