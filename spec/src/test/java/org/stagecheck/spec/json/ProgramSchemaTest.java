package org.stagecheck.spec.json;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.stagecheck.spec.gen.GenOptions;
import org.stagecheck.spec.gen.RandomPrograms;

/** docs/schema/program.schema.json agrees with the reader on real and broken programs. */
class ProgramSchemaTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final JsonSchema SCHEMA = load();

    private static JsonSchema load() {
        try {
            JsonNode node = MAPPER.readTree(Path.of("..", "docs", "schema", "program.schema.json").toFile());
            return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(node);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static Stream<Path> examples() throws IOException {
        return Files.list(Path.of("..", "examples")).filter(p -> p.toString().endsWith(".json")).sorted();
    }

    @ParameterizedTest
    @MethodSource("examples")
    void everyExampleMatchesTheSchema(Path file) throws IOException {
        assertThat(SCHEMA.validate(MAPPER.readTree(file.toFile()))).isEmpty();
    }

    @Test
    void canonicalWritesOfGeneratedProgramsMatchTheSchema() throws IOException {
        ProgramCodec codec = new ProgramCodec();
        for (long seed = 1; seed <= 20; seed++) {
            byte[] bytes = codec.write(RandomPrograms.generate(seed, GenOptions.small()));
            Set<ValidationMessage> errors = SCHEMA.validate(MAPPER.readTree(bytes));
            assertThat(errors).as("seed " + seed).isEmpty();
        }
    }

    @Test
    void brokenProgramsFailBothTheSchemaAndTheReader() throws IOException {
        String good = Files.readString(Path.of("..", "examples", "elementwise-chain.json"));
        String[] broken = {
            good.replace("\"numBlocks\": 1", "\"numBlocks\": 1, \"colour\": \"red\""),
            good.replace("\"role\": \"input\"", "\"role\": \"inptu\""),
            good.replace("\"dtype\": \"bf16\"", "\"dtype\": 16"),
            good.replace("\"subBlocks\": [2, 4]", "\"subBlocks\": [2]"),
            good.replace("\"type\": \"generic\"", "\"type\": \"elementwise\""),
            good.replace("\"version\": 1", "\"version\": 2"),
        };
        for (String text : broken) {
            assertThat(text).isNotEqualTo(good);
            assertThat(SCHEMA.validate(MAPPER.readTree(text))).as(text).isNotEmpty();
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> new ProgramCodec().read(text))
                    .isInstanceOf(JsonFormatException.class);
        }
    }
}
