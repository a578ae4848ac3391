package org.stagecheck.spec.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The optional {@code program} field of an inputs manifest: the hash of the program whose run wrote a run's index. */
class InputsManifestProgramHashTest {
    private static final String HASH = "sha256:" + "0123456789abcdef".repeat(4);
    private final InputsManifestCodec codec = new InputsManifestCodec();

    @Test
    void aProgramHashIsWrittenAsVersionTwoAndReadBack() throws Exception {
        InputsManifest m = new InputsManifest(Map.of("c", "c.npy"), Map.of(), null, HASH);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        codec.write(m, out);
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("\"version\" : 2").contains("\"program\" : {\n    \"hash\" : \"" + HASH + "\"\n  }");
        assertThat(codec.read(text)).isEqualTo(m);
        assertThat(codec.read(text).programHash()).isEqualTo(HASH);
    }

    @Test
    void withoutAProgramHashTheManifestStaysVersionOne() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        codec.write(new InputsManifest(Map.of("c", "c.npy"), Map.of()), out);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("\"version\" : 1").doesNotContain("program");
        assertThat(codec.read(out.toString(StandardCharsets.UTF_8)).programHash()).isNull();
    }

    @Test
    void aProgramFieldNeedsVersionTwoAndAWellFormedHash() {
        String head = "{\"format\": \"stagecheck-inputs\", \"version\": ";
        assertThatThrownBy(() -> codec.read(head + "1, \"program\": {\"hash\": \"" + HASH + "\"}}"))
                .isInstanceOf(JsonFormatException.class).hasMessageContaining("\"program\" needs \"version\": 2").hasMessageContaining("(at /program)");
        assertThatThrownBy(() -> codec.read(head + "2, \"program\": {\"hash\": \"md5:abc\"}}"))
                .hasMessageContaining("64 lowercase hex digits").hasMessageContaining("(at /program/hash)");
        assertThatThrownBy(() -> codec.read(head + "2, \"program\": {\"hash\": \"" + HASH + "\", \"name\": \"x\"}}"))
                .hasMessageContaining("(at /program)");
        assertThatThrownBy(() -> codec.read(head + "2, \"program\": \"" + HASH + "\"}"))
                .hasMessageContaining("(at /program)");
    }
}
