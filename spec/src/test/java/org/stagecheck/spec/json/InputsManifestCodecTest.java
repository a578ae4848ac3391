package org.stagecheck.spec.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The one reader and writer of inputs manifests: round trip, positions in errors, paths that leave. */
class InputsManifestCodecTest {
    private final InputsManifestCodec codec = new InputsManifestCodec();

    @Test
    void writesCanonicallyAndReadsBackInOrder() throws Exception {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("w_q.l0", "weights/w_q.l0.npy");
        files.put("tokens", "inputs/tokens.npy");
        InputsManifest m = new InputsManifest(files, Map.of("pos", 3L));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        codec.write(m, out);
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(text).startsWith("{\n  \"format\" : \"stagecheck-inputs\",\n  \"version\" : 1,").endsWith("}\n");
        InputsManifest back = codec.read(text);
        assertThat(back).isEqualTo(m);
        assertThat(back.tensors().keySet()).containsExactly("w_q.l0", "tokens");
    }

    @Test
    void errorsNamePointerAndPosition() {
        assertThatThrownBy(() -> codec.read("{\"format\": \"stagecheck-inputs\", \"version\": 1,\n \"params\": {\"pos\": 1.5}}"))
                .isInstanceOf(JsonFormatException.class)
                .hasMessage("2:20: parameter \"pos\" must be an integer (at /params/pos)");
        assertThatThrownBy(() -> codec.read("{\"format\": \"stagecheck-inputs\", \"version\": 1, \"extra\": 0}"))
                .hasMessageContaining("unknown field \"extra\"").hasMessageContaining("(at /extra)");
        assertThatThrownBy(() -> codec.read("{\"format\": \"other\", \"version\": 1}"))
                .hasMessageContaining("expected \"format\": \"stagecheck-inputs\"");
        assertThatThrownBy(() -> codec.read("{\"format\": \"stagecheck-inputs\", \"version\": 1, \"version\": 1}"))
                .isInstanceOf(JsonFormatException.class).hasMessageContaining("version");
        assertThatThrownBy(() -> codec.read("{\"format\": \"stagecheck-inputs\", \"version\": 1} x"))
                .isInstanceOf(JsonFormatException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"../x.npy", "/etc/passwd", "a/../../x.npy", "", ".", "a/..", "C:\\\\x.npy", "..\\\\x.npy"})
    void pathsThatLeaveTheDirectoryAreRefused(String path) {
        String text = "{\"format\": \"stagecheck-inputs\", \"version\": 1, \"tensors\": {\"x\": \"" + path + "\"}}";
        assertThatThrownBy(() -> codec.read(text)).isInstanceOf(JsonFormatException.class)
                .hasMessageContaining("(at /tensors/x)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"x.npy", "w/x.npy", "./w/x.npy", "a/../x.npy", "w//x.npy"})
    void pathsInsideAreKept(String path) throws Exception {
        String text = "{\"format\": \"stagecheck-inputs\", \"version\": 1, \"tensors\": {\"x\": \"" + path + "\"}}";
        assertThat(codec.read(text).tensors()).containsEntry("x", path);
    }

    @Test
    void aCheckpointFileKeepsItsDataDigestWhenRecordedAndReadsWithoutOne() throws Exception {
        String h = "a".repeat(64);
        String d = "b".repeat(64);
        CheckpointRefs refs = new CheckpointRefs("/m", Map.of("model.safetensors", new CheckpointRefs.FileFacts(10, h, d)),
                Map.of("w", new CheckpointRefs.TensorRef("model.safetensors", "k", CheckpointRefs.View.TRANSPOSED, null)));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        codec.write(new InputsManifest(Map.of(), Map.of(), refs), out);
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("\"dataSha256\" : \"" + d + "\"");
        assertThat(codec.read(text).checkpoint().files().get("model.safetensors").dataSha256()).isEqualTo(d);
        String without = text.replaceAll(",\\s*\"dataSha256\" : \"b+\"", "");
        assertThat(without).doesNotContain("dataSha256");
        assertThat(codec.read(without).checkpoint().files().get("model.safetensors")).isEqualTo(new CheckpointRefs.FileFacts(10, h));
        assertThatThrownBy(() -> codec.read(text.replace(d, "B".repeat(64)))).isInstanceOf(JsonFormatException.class)
                .hasMessageContaining("(at /checkpoint/files/model.safetensors/dataSha256)");
    }
}
