package org.stagecheck.author;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
                .hasMessage(odd + ":1:" + column(GOOD, "headDim") + ": headDim must be even (rotary embedding rotates pairs), not 7");
        Path typo = write("{\"name\":\"m\",\"vocabulary\":64}");
        assertThatThrownBy(() -> ModelSpec.read(typo)).hasMessageStartingWith(typo + ":1:26: unknown field \"vocabulary\"");
        Path missing = write("{\"name\":\"m\"}");
        assertThatThrownBy(() -> ModelSpec.read(missing)).hasMessage(missing + ":1:1: field \"vocab\" must be an integer (it is missing)");
        Path notJson = write("{nope");
        assertThatThrownBy(() -> ModelSpec.read(notJson)).isInstanceOf(ModelSpecException.class)
                .hasMessageStartingWith(notJson + ":1:2: malformed JSON");
        assertThatThrownBy(() -> ModelSpec.read(dir.resolve("absent.json"))).isInstanceOf(ModelSpecException.class);
    }

    /** The 1-based column of {@code field}'s value in a one-line spec. */
    private static int column(String json, String field) {
        return json.indexOf("\"" + field + "\":") + field.length() + 4;
    }

    /**
     * A value the spec refuses although its type is right is named at its own line:column, as
     * every other JSON reader of the project names its errors: the spec's field, not only its name.
     */
    @Test
    void valuesTheSpecRefusesAreNamedAtTheirLineAndColumn() throws IOException {
        String multiLine = GOOD.replace(",", ",\n  ");
        record Bad(String field, String from, String to, String message) {}
        for (Bad b : List.of(
                new Bad("kvHeads", "\"kvHeads\":4", "\"kvHeads\":3", "heads (8) must be a multiple of kvHeads (3)"),
                new Bad("normEps", "\"normEps\":1e-5", "\"normEps\":0", "normEps must be a finite positive number, not 0.0"),
                new Bad("normEps", "\"normEps\":1e-5", "\"normEps\":-1e-5", "normEps must be a finite positive number, not -1.0E-5"),
                new Bad("normEps", "\"normEps\":1e-5", "\"normEps\":1e999", "normEps must be a finite positive number, not Infinity"),
                new Bad("ropeTheta", "\"ropeTheta\":10000", "\"ropeTheta\":1", "ropeTheta must be a finite number above 1, not 1.0"),
                new Bad("headDim", "\"headDim\":8", "\"headDim\":7", "headDim must be even (rotary embedding rotates pairs), not 7"),
                new Bad("heads", "\"heads\":8", "\"heads\":0", "heads is 0; every size"),
                new Bad("name", "\"name\":\"m\"", "\"name\":\"a/b\"", "the model name"))) {
            String text = multiLine.replace(b.from(), b.to());
            Path f = write(text);
            String before = text.substring(0, text.indexOf("\"" + b.field() + "\":"));
            int line = (int) before.chars().filter(c -> c == '\n').count() + 1;
            int col = before.length() - before.lastIndexOf('\n') - 1 + b.field().length() + 4;
            assertThatThrownBy(() -> ModelSpec.read(f)).as(b.to()).isInstanceOf(ModelSpecException.class)
                    .hasMessageStartingWith(f + ":" + line + ":" + col + ": " + b.message());
        }
    }

    private Path write(String text) throws IOException {
        Path f = Files.createTempFile(dir, "spec", ".json");
        Files.writeString(f, text);
        return f;
    }

    private static final String GOOD = "{\"name\":\"m\",\"vocab\":64,\"hidden\":32,\"layers\":2,\"heads\":8,\"kvHeads\":4,\"headDim\":8,"
            + "\"ffn\":64,\"ropeTheta\":10000,\"normEps\":1e-5,\"seed\":1}";

    @Test
    void theSpecReaderKeepsEveryReadersRules() throws IOException {
        Path dup = write(GOOD.replace("\"seed\":1}", "\"seed\":1,\"vocab\":65}"));
        assertThatThrownBy(() -> ModelSpec.read(dup)).isInstanceOf(ModelSpecException.class)
                .hasMessageStartingWith(dup + ":1:").hasMessageContaining("Duplicate field 'vocab'");
        Path junk = write(GOOD + " {}");
        assertThatThrownBy(() -> ModelSpec.read(junk)).hasMessageStartingWith(junk + ":1:").hasMessageContaining("unexpected content after the end of the JSON value");
        Path wrongType = write(GOOD.replace("\"layers\":2", "\"layers\":\"2\""));
        assertThatThrownBy(() -> ModelSpec.read(wrongType)).hasMessage(wrongType + ":1:45: field \"layers\" must be an integer, not a string");
        Path big = dir.resolve("big.json");
        try (var f = new java.io.RandomAccessFile(big.toFile(), "rw")) {
            f.setLength(org.stagecheck.spec.json.JsonReader.MAX_FILE_BYTES + 1);
        }
        assertThatThrownBy(() -> ModelSpec.read(big)).hasMessageContaining("the limit for a JSON file is");
        Path array = write("[]");
        assertThatThrownBy(() -> ModelSpec.read(array)).hasMessage(array + ":1:1: a model spec is a JSON object, not an array");
    }

    @Test
    void modelsBeyondTheLimitsAreRefusedBeforeAnyWork() throws IOException {
        Path layers = write(GOOD.replace("\"layers\":2", "\"layers\":1000000"));
        assertThatThrownBy(() -> ModelSpec.read(layers)).hasMessage(layers + ":1:" + column(GOOD, "layers")
                + ": layers is 1000000; at most 256 are authored");
        Path wide = write(GOOD.replace("\"hidden\":32", "\"hidden\":70000"));
        assertThatThrownBy(() -> ModelSpec.read(wide)).hasMessageContaining("over the limit of 65536");
        Path vocab = write(GOOD.replace("\"vocab\":64", "\"vocab\":2000000"));
        assertThatThrownBy(() -> ModelSpec.read(vocab)).hasMessageContaining("vocab is 2000000; at most 1048576");
        Path heavy = write(GOOD.replace("\"hidden\":32", "\"hidden\":8192").replace("\"ffn\":64", "\"ffn\":32768").replace("\"layers\":2", "\"layers\":8"));
        // no one field decides the total: placed at the spec's object
        assertThatThrownBy(() -> ModelSpec.read(heavy)).hasMessageStartingWith(heavy + ":1:1: ").hasMessageContaining("GiB as f32")
                .hasMessageContaining("at most 2 GiB are authored");
        assertThatThrownBy(() -> new ModelSpec("m", 64, 32, 257, 8, 4, 8, 64, 1e4, 1e-5, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(ModelSpec.small().weightCount() * 4).isLessThan(ModelSpec.MAX_WEIGHT_BYTES);
        // the count is every weight: embed + head, and per layer two norms and seven matrices, plus the final norm
        ModelSpec t = ModelSpec.tiny();
        assertThat(t.weightCount()).isEqualTo(2L * 64 * 32 + 2 * (2 * 32 + 32 * 64 + 2 * 32 * 32 + 64 * 32 + 3 * 32 * 64) + 32);
    }

    @Test
    void modelJsonIsASpecFileThatReadsBackEqual() throws Exception {
        for (ModelSpec m : new ModelSpec[] {ModelSpec.tiny(), ModelSpec.small(), new ModelSpec("odd", 7, 6, 1, 3, 1, 2, 10, 500.5, 1e-6, -99L)}) {
            Path f = dir.resolve(m.name() + ".json");
            try (var out = Files.newOutputStream(f)) {
                m.writeJson(out);
            }
            assertThat(Files.readString(f)).contains("\"format\" : \"stagecheck-model\"");
            assertThat(ModelSpec.read(f)).isEqualTo(m);
        }
    }
}
