package org.stagecheck.tensor.safetensors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import org.stagecheck.tensor.npy.TensorFileException;

/** Model directories whose files or index disagree, or that reach outside themselves. */
class SafetensorsCheckpointTest {
    @TempDir
    Path root;

    private Path model() throws Exception {
        return Files.createDirectories(root.resolve("model"));
    }

    private static SequencedMap<String, Tensor> two(String a, String b) {
        SequencedMap<String, Tensor> m = new LinkedHashMap<>();
        m.put(a, Tensor.fromFloats(DType.F32, Shape.of(2), new float[] {1, 2}));
        m.put(b, Tensor.fromFloats(DType.BF16, Shape.of(1, 2), new float[] {3, 4}));
        return m;
    }

    private static void refused(Path dir, String... fragments) {
        assertThatThrownBy(() -> {
            try (SafetensorsCheckpoint ck = SafetensorsCheckpoint.open(dir)) {
                assertThat(ck).as("opened").isNull();
            }
        }).isExactlyInstanceOf(TensorFileException.class).hasMessageContainingAll(fragments);
    }

    private static void index(Path dir, String json) throws Exception {
        Files.writeString(dir.resolve(SafetensorsWriter.INDEX_FILE), json);
    }

    @Test
    void aLinkThatLeadsOutOfTheDirectoryIsRefusedNamingIt() throws Exception {
        Path dir = model();
        Path outside = root.resolve("elsewhere.safetensors");
        SafetensorsWriter.write(outside, two("a", "b"), Map.of());
        Files.createSymbolicLink(dir.resolve("model.safetensors"), outside);
        refused(dir, dir.resolve("model.safetensors").toString(), "leads to", "outside the model directory");
        assertThatThrownBy(() -> SafetensorsFile.open(dir, "model.safetensors")).isExactlyInstanceOf(TensorFileException.class)
                .hasMessageContaining("outside the model directory " + dir);
        // asked for, links may leave (the Hugging Face cache links snapshots to blobs)
        try (SafetensorsCheckpoint ck = SafetensorsCheckpoint.open(dir, true)) {
            assertThat(ck.read("a").toFloats()).containsExactly(1f, 2f);
        }
        // a link that stays inside is followed
        Files.delete(dir.resolve("model.safetensors"));
        Files.move(outside, dir.resolve("real.safetensors"));
        Files.createSymbolicLink(dir.resolve("model.safetensors"), Path.of("real.safetensors"));
        try (SafetensorsCheckpoint ck = SafetensorsCheckpoint.open(dir)) {
            assertThat(ck.entries().keySet()).containsExactly("a", "b");
        }
    }

    @Test
    void aFileNameMustBePlain() throws Exception {
        Path dir = model();
        for (String bad : new String[] {"../x.safetensors", "a/b", "..", ".", ""}) {
            assertThatThrownBy(() -> SafetensorsFile.open(dir, bad)).isExactlyInstanceOf(TensorFileException.class)
                    .hasMessageContaining("is not a plain file name inside the directory");
        }
    }

    @Test
    void anIndexFileOutsideTheDirectoryIsRefused() throws Exception {
        Path dir = model();
        SafetensorsWriter.writeSharded(dir, two("a", "b"), 1 << 20);
        Path moved = root.resolve("index.json");
        Files.move(dir.resolve(SafetensorsWriter.INDEX_FILE), moved);
        Files.createSymbolicLink(dir.resolve(SafetensorsWriter.INDEX_FILE), moved);
        refused(dir, SafetensorsWriter.INDEX_FILE, "outside the model directory");
    }

    @Test
    void aDirectoryWithoutWeightsOrWithBothFormsIsRefused() throws Exception {
        Path dir = model();
        refused(dir, "has neither model.safetensors nor model.safetensors.index.json");
        refused(dir.resolve("missing"), "no such directory");
        SafetensorsWriter.writeSharded(dir, two("a", "b"), 1 << 20);
        SafetensorsWriter.write(dir.resolve("model.safetensors"), two("a", "b"), Map.of());
        refused(dir, "has both model.safetensors and model.safetensors.index.json");
    }

    @Test
    void theIndexMustListEveryTensorOfEveryShardWithItsFile() throws Exception {
        Path dir = model();
        SafetensorsWriter.write(dir.resolve("s1.safetensors"), two("a", "b"), Map.of());
        SafetensorsWriter.write(dir.resolve("s2.safetensors"), two("c", "b"), Map.of());
        index(dir, "{\"weight_map\": {\"a\": \"s1.safetensors\", \"b\": \"s1.safetensors\", \"c\": \"s2.safetensors\"}}");
        refused(dir, "s2.safetensors: holds tensor 'b', which model.safetensors.index.json puts in s1.safetensors; a tensor is in two files");
        index(dir, "{\"weight_map\": {\"a\": \"s1.safetensors\"}}");
        refused(dir, "s1.safetensors: holds tensor 'b', which model.safetensors.index.json does not list");
        index(dir, "{\"weight_map\": {\"a\": \"s1.safetensors\", \"b\": \"s1.safetensors\", \"z\": \"s1.safetensors\"}}");
        refused(dir, "weight_map puts tensor 'z' in s1.safetensors, which has no such tensor");
        index(dir, "{\"weight_map\": {\"a\": \"s1.safetensors\", \"b\": \"s1.safetensors\", \"x\": \"s3.safetensors\"}}");
        refused(dir, "s3.safetensors: no such file");
        index(dir, "{\"metadata\": {\"total_size\": 12}, \"weight_map\": {\"a\": \"s1.safetensors\", \"b\": \"s1.safetensors\"}}");
        try (SafetensorsCheckpoint ck = SafetensorsCheckpoint.open(dir)) {
            assertThat(ck.files()).containsExactly("s1.safetensors");
            assertThat(ck.read("b").toFloats()).containsExactly(3f, 4f);
            assertThatThrownBy(() -> ck.read("c")).isExactlyInstanceOf(TensorFileException.class).hasMessageContaining("no tensor 'c'");
            assertThatThrownBy(() -> ck.headerSha256("s2.safetensors")).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void aMalformedIndexIsRefusedWithItsPosition() throws Exception {
        Path dir = model();
        SafetensorsWriter.write(dir.resolve("s1.safetensors"), two("a", "b"), Map.of());
        index(dir, "{\"weight_map\": {\"a\": \"s1.safetensors\"}, \"extra\": 1}");
        refused(dir, "1:50", "unknown field 'extra'; an index has only metadata and weight_map");
        index(dir, "{\"metadata\": {}}");
        refused(dir, "the index has no weight_map");
        index(dir, "{\"weight_map\": []}");
        refused(dir, "weight_map is an array");
        index(dir, "{\"weight_map\": {}}");
        refused(dir, "weight_map lists no tensors");
        index(dir, "{\"weight_map\": {\"a\": 3}}");
        refused(dir, "tensor 'a' maps to a number");
        index(dir, "{\"weight_map\": {\"a\": \"../s1.safetensors\"}}");
        refused(dir, "maps to '../s1.safetensors', which is not a plain file name");
        index(dir, "{\"weight_map\": {\"a\": \"s1.safetensors\", \"a\": \"s1.safetensors\"}}");
        refused(dir, "Duplicate field 'a'");
        index(dir, "{\"metadata\": 1, \"weight_map\": {\"a\": \"s1.safetensors\"}}");
        refused(dir, "metadata is a number");
        index(dir, "[");
        refused(dir, SafetensorsWriter.INDEX_FILE, "malformed JSON");
    }
}
