package org.stagecheck.tensor.safetensors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;

/** What the writer writes the reader gives back bit for bit, plain, transposed and sharded. */
class SafetensorsRoundTripTest {
    @TempDir
    Path dir;

    /** Random bits, plus NaNs with payloads, signed zeros and infinities at the front. */
    private static Tensor random(DType dtype, Shape shape, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int n = (int) shape.elementCount();
        return switch (dtype) {
            case F32 -> {
                float[] v = new float[n];
                int[] specials = {0x7FC00001, 0xFFA00003, 0x80000000, 0x00000000, 0x7F800000, 0x00000001};
                for (int i = 0; i < n; i++) {
                    v[i] = Float.intBitsToFloat(i < specials.length ? specials[i] : r.nextInt());
                }
                yield Tensor.wrapFloats(shape, v);
            }
            case BF16, F16 -> {
                short[] v = new short[n];
                short[] specials = dtype == DType.BF16
                        ? new short[] {(short) 0x7FC1, (short) 0xFF81, (short) 0x8000, 0, (short) 0x7F80}
                        : new short[] {(short) 0x7E01, (short) 0xFC01, (short) 0x8000, 0, (short) 0x7C00};
                for (int i = 0; i < n; i++) {
                    v[i] = i < specials.length ? specials[i] : (short) r.nextInt();
                }
                yield Tensor.wrapBits16(dtype, shape, v);
            }
            case I32, E4M3, E5M2 -> throw new IllegalArgumentException(dtype.toString());
        };
    }

    private static SequencedMap<String, Tensor> sample() {
        SequencedMap<String, Tensor> m = new LinkedHashMap<>();
        m.put("model.embed_tokens.weight", random(DType.BF16, Shape.of(37, 19), 1));
        m.put("model.norm.weight", random(DType.F32, Shape.of(19), 2));
        m.put("model.layers.0.self_attn.q_proj.weight", random(DType.F16, Shape.of(70, 65), 3));
        m.put("odd.f32", random(DType.F32, Shape.of(3, 129), 4));
        m.put("cube", random(DType.BF16, Shape.of(2, 3, 5), 5));
        m.put("empty", random(DType.F16, Shape.of(0, 4), 6));
        return m;
    }

    @Test
    void everyDtypeAndRankComesBackBitForBit() throws Exception {
        SequencedMap<String, Tensor> m = sample();
        Path f = dir.resolve("m.safetensors");
        SafetensorsWriter.write(f, m, Map.of("format", "pt"));
        try (SafetensorsFile st = SafetensorsFile.open(f)) {
            assertThat(st.dataStart() % 8).isZero();
            assertThat(st.metadata()).containsExactly(Map.entry("format", "pt"));
            assertThat(st.entries().keySet()).containsExactlyElementsOf(m.keySet());
            for (var e : m.entrySet()) {
                Tensor back = st.read(e.getKey());
                assertThat(back.bitEquals(e.getValue())).as(e.getKey()).isTrue();
                assertThat(st.entry(e.getKey()).dtype()).isEqualTo(e.getValue().dtype());
            }
            assertThat(st.entry("model.norm.weight").shape()).containsExactly(19L);
            assertThat(st.read("model.norm.weight").shape().rank()).isEqualTo(1);
        }
        assertThat(Files.list(dir).map(p -> p.getFileName().toString()).toList()).containsExactly("m.safetensors");
    }

    @Test
    void aTransposedReadIsTheTranspose() throws Exception {
        SequencedMap<String, Tensor> m = sample();
        Path f = dir.resolve("m.safetensors");
        SafetensorsWriter.write(f, m, Map.of());
        try (SafetensorsFile st = SafetensorsFile.open(f)) {
            for (String name : List.of("model.embed_tokens.weight", "model.layers.0.self_attn.q_proj.weight", "odd.f32", "empty")) {
                Tensor t = m.get(name);
                int rows = t.shape().dim(0);
                int cols = t.shape().dim(1);
                Tensor tt = st.readTransposed(name);
                assertThat(tt.shape()).isEqualTo(Shape.of(cols, rows));
                assertThat(tt.dtype()).isEqualTo(t.dtype());
                byte[] a = t.littleEndianBytes();
                byte[] b = tt.littleEndianBytes();
                int w = t.dtype().byteSize();
                for (int r = 0; r < rows; r++) {
                    for (int c = 0; c < cols; c++) {
                        for (int k = 0; k < w; k++) {
                            assertThat(b[(c * rows + r) * w + k]).isEqualTo(a[(r * cols + c) * w + k]);
                        }
                    }
                }
            }
        }
    }

    @Test
    void shardedCheckpointsRoundTripAndShardLikeSavePretrained() throws Exception {
        SequencedMap<String, Tensor> m = sample();
        // embed (1406 B) > 1000: a shard of its own; then norm (76) + q (9100 > 1000, alone) ...
        SafetensorsWriter.writeSharded(dir, m, 1000);
        List<String> names = Stream.of(dir.toFile().list()).sorted().toList();
        assertThat(names).contains(SafetensorsWriter.INDEX_FILE, "model-00001-of-00005.safetensors", "model-00005-of-00005.safetensors")
                .hasSize(6);
        String index = Files.readString(dir.resolve(SafetensorsWriter.INDEX_FILE));
        long total = m.values().stream().mapToLong(t -> t.size() * t.dtype().byteSize()).sum();
        assertThat(index).contains("\"total_size\" : " + total);
        try (SafetensorsCheckpoint ck = SafetensorsCheckpoint.open(dir)) {
            assertThat(ck.entries().keySet()).containsExactlyElementsOf(m.keySet());
            assertThat(ck.files()).hasSize(5);
            assertThat(ck.fileOf("model.embed_tokens.weight")).isEqualTo("model-00001-of-00005.safetensors");
            assertThat(ck.fileOf("model.norm.weight")).isEqualTo("model-00002-of-00005.safetensors");
            assertThat(ck.fileOf("model.layers.0.self_attn.q_proj.weight")).isEqualTo("model-00003-of-00005.safetensors");
            for (var e : m.entrySet()) {
                assertThat(ck.read(e.getKey()).bitEquals(e.getValue())).as(e.getKey()).isTrue();
            }
            assertThat(ck.readTransposed("odd.f32").shape()).isEqualTo(Shape.of(129, 3));
            for (String file : ck.files()) {
                assertThat(ck.fileBytes(file)).isEqualTo(Files.size(dir.resolve(file)));
                assertThat(ck.headerSha256(file)).hasSize(64);
            }
            assertThat(ck.entry("absent")).isNull();
        }
    }

    @Test
    void oneFileCheckpointAndItsHeaderHashFollowTheHeader() throws Exception {
        SequencedMap<String, Tensor> m = sample();
        SafetensorsWriter.write(dir.resolve("model.safetensors"), m, Map.of());
        String before;
        try (SafetensorsCheckpoint ck = SafetensorsCheckpoint.open(dir)) {
            assertThat(ck.files()).containsExactly("model.safetensors");
            assertThat(ck.fileOf("cube")).isEqualTo("model.safetensors");
            assertThat(ck.read("cube").bitEquals(m.get("cube"))).isTrue();
            before = ck.headerSha256("model.safetensors");
        }
        // the same header over other values: same hash; another shape: another hash
        m.put("cube", random(DType.BF16, Shape.of(2, 3, 5), 99));
        SafetensorsWriter.write(dir.resolve("model.safetensors"), m, Map.of());
        try (SafetensorsCheckpoint ck = SafetensorsCheckpoint.open(dir)) {
            assertThat(ck.headerSha256("model.safetensors")).isEqualTo(before);
        }
        m.put("cube", random(DType.BF16, Shape.of(3, 2, 5), 99));
        SafetensorsWriter.write(dir.resolve("model.safetensors"), m, Map.of());
        try (SafetensorsCheckpoint ck = SafetensorsCheckpoint.open(dir)) {
            assertThat(ck.headerSha256("model.safetensors")).isNotEqualTo(before);
        }
    }

    @Test
    void aFileOfNoTensorsAndAScalarAreRead() throws Exception {
        try (SafetensorsFile st = SafetensorsFile.open(StFiles.write(dir, "none.safetensors", "{}", new byte[0]))) {
            assertThat(st.entries()).isEmpty();
            assertThat(st.metadata()).isEmpty();
        }
        try (SafetensorsFile st = SafetensorsFile.open(StFiles.write(dir, "s.safetensors", "{" + StFiles.entry("s", "F32", "[]", 0, 4) + "}",
                StFiles.f32s(1)))) {
            Tensor s = st.read("s");
            assertThat(s.shape().rank()).isZero();
            assertThat(s.getFloat(0)).isEqualTo(1f);
        }
    }

    @Test
    void headerOrderIsNotDataOrder() throws Exception {
        String header = "{" + StFiles.entry("b", "F32", "[2]", 8, 16) + "," + StFiles.entry("a", "F32", "[2]", 0, 8) + "}";
        Path f = StFiles.write(dir, "x.safetensors", header, StFiles.f32s(4));
        try (SafetensorsFile st = SafetensorsFile.open(f)) {
            assertThat(st.entries().keySet()).containsExactly("b", "a");
            assertThat(st.read("a").toFloats()).containsExactly(1f, 2f);
            assertThat(st.read("b").toFloats()).containsExactly(3f, 4f);
        }
    }

    @Test
    void trailingSpacesAndUnalignedDataAreRead() throws Exception {
        // no padding rule on reading: a 2-byte tensor then an f32 at an odd file position
        String header = "{" + StFiles.entry("h", "BF16", "[1]", 0, 2) + "," + StFiles.entry("f", "F32", "[1]", 2, 6) + "}   ";
        ByteBuffer data = ByteBuffer.allocate(6).order(ByteOrder.LITTLE_ENDIAN).putShort((short) 0x3F80).putFloat(-3.5f);
        Path f = StFiles.write(dir, "x.safetensors", header, data.array());
        try (SafetensorsFile st = SafetensorsFile.open(f)) {
            assertThat(st.read("h").getFloat(0)).isEqualTo(1f);
            assertThat(st.read("f").getFloat(0)).isEqualTo(-3.5f);
        }
    }

    @Test
    void theWriterRefusesWhatTheFormatCannotHoldAndLeavesNothingBehind() throws Exception {
        SequencedMap<String, Tensor> ints = new LinkedHashMap<>();
        ints.put("i", Tensor.fromInts(Shape.of(2), new int[] {1, 2}));
        Path f = dir.resolve("i.safetensors");
        assertThatThrownBy(() -> SafetensorsWriter.write(f, ints, Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("f32, bf16 and f16");
        List<TensorSpec> specs = List.of(new TensorSpec("a", DType.F32, Shape.of(2)), new TensorSpec("b", DType.F32, Shape.of(3)));
        assertThatThrownBy(() -> SafetensorsWriter.write(f, specs, Map.of(),
                spec -> Tensor.zeros(DType.F32, Shape.of(2)))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'b' was declared f32 [3]");
        assertThat(dir.toFile().list()).isEmpty();
        assertThatThrownBy(() -> new TensorSpec("", DType.F32, Shape.of(1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SafetensorsWriter.write(f, List.of(specs.get(0), specs.get(0)), Map.of(), spec -> null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("declared twice");
    }

    @Test
    void theStreamingFormAsksForEachTensorOnceInOrder() throws Exception {
        List<TensorSpec> specs = List.of(new TensorSpec("x", DType.F16, Shape.of(3)), new TensorSpec("y", DType.F32, Shape.of(1, 2)));
        List<String> asked = new java.util.ArrayList<>();
        SafetensorsWriter.writeSharded(dir, specs, 1 << 20, spec -> {
            asked.add(spec.name());
            return Tensor.fromFloats(spec.dtype(), spec.shape(), new float[(int) spec.shape().elementCount()]);
        });
        assertThat(asked).containsExactly("x", "y");
        assertThat(Files.readString(dir.resolve(SafetensorsWriter.INDEX_FILE), StandardCharsets.UTF_8))
                .contains("model-00001-of-00001.safetensors");
        try (SafetensorsCheckpoint ck = SafetensorsCheckpoint.open(dir)) {
            assertThat(ck.entries().keySet()).containsExactly("x", "y");
        }
    }
}
