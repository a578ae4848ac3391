package org.stagecheck.author.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.author.oracle.HfConfig64.Family;
import org.stagecheck.author.oracle.TestCheckpointWriter.Dtype;
import org.stagecheck.author.oracle.TestCheckpointWriter.Tensor64;
import org.stagecheck.author.oracle.TinyModels.Spec;

/** The oracle's own safetensors reading: dtypes widened exactly, shards, and broken files refused by name. */
class CheckpointReadingTest {
    private static final Spec SPEC = Spec.of(Family.QWEN3);
    private static final int[] TOKENS = {1, 4, 9, 3};

    @Test
    void oneModelInEveryDtypeSingleOrShardedGivesTheSameLogits(@TempDir Path dir) {
        Map<String, Tensor64> weights = TinyModels.weights(SPEC, 23);
        double[][] reference = null;
        for (Dtype dtype : Dtype.values()) {
            for (int shards : new int[] {0, 3}) {
                Path d = dir.resolve(dtype + "-" + shards);
                TestCheckpointWriter.writeConfig(d, TinyModels.config(SPEC));
                if (shards == 0) {
                    TestCheckpointWriter.writeSingle(d, weights, dtype);
                } else {
                    TestCheckpointWriter.writeSharded(d, weights, dtype, shards);
                }
                HfCheckpoint64 ckpt = HfCheckpoint64.open(d);
                assertThat(ckpt.dtype("model.norm.weight")).isEqualTo(dtype.name());
                double[][] logits = new HfForward64(ckpt).forwardAll(TOKENS);
                if (reference == null) {
                    reference = logits;
                }
                for (int p = 0; p < TOKENS.length; p++) {
                    assertThat(logits[p]).as("%s, %d shards, position %d", dtype, shards, p).isEqualTo(reference[p]);
                }
            }
        }
        assertThat(Files.exists(dir.resolve("BF16-3").resolve("model-00003-of-00003.safetensors"))).isTrue();
    }

    @Test
    void narrowFloatsAreWidenedBitForBit(@TempDir Path dir) throws IOException {
        // bf16 0x3FC1 = 1.5078125; f16 0x0001 = 2^-24 (subnormal), 0xFBFF = -65504
        Path bf16 = raw(dir.resolve("b.safetensors"), "BF16", new short[] {0x3FC1, (short) 0xC000});
        assertThat(SafetensorsFile64.open(bf16).read("t")).containsExactly(1.5078125, -2.0);
        Path f16 = raw(dir.resolve("h.safetensors"), "F16", new short[] {0x0001, (short) 0xFBFF});
        assertThat(SafetensorsFile64.open(f16).read("t")).containsExactly(Math.pow(2, -24), -65504.0);
    }

    @Test
    void brokenFilesAreRefusedByName(@TempDir Path dir) throws IOException {
        Path tiny = dir.resolve("tiny.safetensors");
        Files.write(tiny, new byte[] {1, 2, 3});
        assertThatThrownBy(() -> SafetensorsFile64.open(tiny)).isInstanceOf(OracleInputException.class)
                .hasMessageContaining("tiny.safetensors: 3 bytes, shorter than the 8-byte header length");

        Path longHeader = dir.resolve("long.safetensors");
        Files.write(longHeader, ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(1000).array());
        assertThatThrownBy(() -> SafetensorsFile64.open(longHeader)).isInstanceOf(OracleInputException.class)
                .hasMessageContaining("header length 1000 does not fit a file of 16 bytes");

        Path pastEnd = file(dir.resolve("past.safetensors"), "{\"t\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]}}", 4);
        assertThatThrownBy(() -> SafetensorsFile64.open(pastEnd)).isInstanceOf(OracleInputException.class)
                .hasMessageContaining("tensor t: data_offsets [0,8] outside the 4 data bytes");

        Path wrongCount = file(dir.resolve("count.safetensors"), "{\"t\": {\"dtype\": \"F32\", \"shape\": [3], \"data_offsets\": [0, 8]}}", 8);
        assertThatThrownBy(() -> SafetensorsFile64.open(wrongCount)).isInstanceOf(OracleInputException.class)
                .hasMessageContaining("tensor t: 8 data bytes for 3 elements of F32");

        Path ints = file(dir.resolve("ints.safetensors"), "{\"t\": {\"dtype\": \"I32\", \"shape\": [2], \"data_offsets\": [0, 8]}}", 8);
        assertThatThrownBy(() -> SafetensorsFile64.open(ints).read("t")).isInstanceOf(OracleInputException.class)
                .hasMessageContaining("tensor t is I32");
    }

    @Test
    void aShapeOtherThanTheConfigsIsRefused(@TempDir Path dir) {
        Map<String, Object> config = new java.util.LinkedHashMap<>(TinyModels.config(SPEC));
        config.remove("head_dim"); // Qwen3's class default is 128, which the 4-wide tensors do not have
        TestCheckpointWriter.writeConfig(dir, config);
        TestCheckpointWriter.writeSingle(dir, TinyModels.weights(SPEC, 1), Dtype.F32);
        assertThatThrownBy(() -> HfForward64.open(dir)).isInstanceOf(OracleInputException.class)
                .hasMessageContaining("tensor model.layers.0.self_attn.q_proj.weight has shape [16, 8], the config implies [512, 8]");
    }

    @Test
    void configsTheOracleDoesNotModelAreRefused(@TempDir Path dir) {
        for (var bad : Map.of(
                "use_sliding_window", "use_sliding_window true is refused",
                "rope_scaling", "rope type yarn is refused",
                "hidden_act", "hidden_act gelu").entrySet()) {
            Map<String, Object> config = new java.util.LinkedHashMap<>(TinyModels.config(Spec.of(Family.QWEN2)));
            config.put(bad.getKey(), switch (bad.getKey()) {
                case "use_sliding_window" -> true;
                case "rope_scaling" -> Map.of("rope_type", "yarn", "factor", 4.0);
                default -> "gelu";
            });
            Path d = dir.resolve(bad.getKey());
            TestCheckpointWriter.writeConfig(d, config);
            assertThatThrownBy(() -> HfCheckpoint64.open(d)).as(bad.getKey()).isInstanceOf(OracleInputException.class)
                    .hasMessageContaining(bad.getValue());
        }
    }

    /** A file of one tensor "t" of two narrow values. */
    private static Path raw(Path file, String dtype, short[] values) throws IOException {
        Path f = file(file, "{\"t\": {\"dtype\": \"" + dtype + "\", \"shape\": [2], \"data_offsets\": [0, 4]}}", 0);
        ByteBuffer data = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putShort(values[0]).putShort(values[1]);
        Files.write(f, data.array(), java.nio.file.StandardOpenOption.APPEND);
        return f;
    }

    /** A header followed by {@code dataBytes} zero bytes. */
    private static Path file(Path file, String header, int dataBytes) throws IOException {
        byte[] json = header.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(8 + json.length + dataBytes).order(ByteOrder.LITTLE_ENDIAN).putLong(json.length).put(json);
        Files.write(file, b.array());
        return file;
    }
}
