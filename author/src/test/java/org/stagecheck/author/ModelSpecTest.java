package org.stagecheck.author;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModelSpecTest {
    @TempDir
    Path dir;

    @Test
    void builtInSpecsHaveTheAdvertisedSizes() {
        assertThat(ModelSpec.small().hidden()).isGreaterThanOrEqualTo(512);
        assertThat(ModelSpec.small().vocab()).isGreaterThanOrEqualTo(1000);
        assertThat(ModelSpec.small().layers()).isGreaterThan(1);
        assertThat(ModelSpec.tiny().groupSize()).isEqualTo(2);
    }

    @Test
    void readsAJsonSpec() throws Exception {
        Path f = write("{\"name\":\"m\",\"vocab\":64,\"hidden\":32,\"layers\":2,\"heads\":8,\"kvHeads\":4,\"headDim\":8,"
                + "\"ffn\":64,\"ropeTheta\":10000,\"normEps\":1e-5,\"seed\":1}");
        assertThat(ModelSpec.read(f)).isEqualTo(new ModelSpec("m", 64, 32, 2, 8, 4, 8, 64, 10000, 1e-5, 1));
    }

    @Test
    void resolvesBuiltInNamesAndFiles() throws Exception {
        assertThat(ModelSpec.resolve("tiny")).isEqualTo(ModelSpec.tiny());
        assertThat(ModelSpec.resolve("small")).isEqualTo(ModelSpec.small());
        Path f = write("{\"name\":\"m\",\"vocab\":8,\"hidden\":4,\"layers\":1,\"heads\":1,\"kvHeads\":1,\"headDim\":2,"
                + "\"ffn\":4,\"ropeTheta\":100,\"normEps\":1e-6,\"seed\":9}");
        assertThat(ModelSpec.resolve(f.toString()).vocab()).isEqualTo(8);
        assertThatThrownBy(() -> ModelSpec.resolve("medium")).isInstanceOf(ModelSpecException.class)
                .hasMessageStartingWith("medium: cannot read a JSON model spec");
    }

    @Test
    void badSpecsGetAClearMessage() throws IOException {
        Path odd = write("{\"name\":\"m\",\"vocab\":64,\"hidden\":32,\"layers\":2,\"heads\":8,\"kvHeads\":4,\"headDim\":7,"
                + "\"ffn\":64,\"ropeTheta\":10000,\"normEps\":1e-5,\"seed\":1}");
        assertThatThrownBy(() -> ModelSpec.read(odd)).isInstanceOf(ModelSpecException.class)
                .hasMessage(odd + ": headDim must be even (rotary embedding rotates pairs), not 7");
        Path typo = write("{\"name\":\"m\",\"vocabulary\":64}");
        assertThatThrownBy(() -> ModelSpec.read(typo)).hasMessageContaining("unknown field(s) [vocabulary]");
        Path missing = write("{\"name\":\"m\"}");
        assertThatThrownBy(() -> ModelSpec.read(missing)).hasMessage(missing + ": field \"vocab\" must be a 32-bit integer");
        Path notJson = write("{nope");
        assertThatThrownBy(() -> ModelSpec.read(notJson)).isInstanceOf(ModelSpecException.class)
                .hasMessageStartingWith(notJson + ": cannot read a JSON model spec");
        assertThatThrownBy(() -> ModelSpec.read(dir.resolve("absent.json"))).isInstanceOf(ModelSpecException.class);
    }

    private Path write(String text) throws IOException {
        Path f = Files.createTempFile(dir, "spec", ".json");
        Files.writeString(f, text);
        return f;
    }
}
