package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** With --json every command prints exactly one JSON document, whatever the outcome. */
class JsonOutcomeTest {
    @TempDir
    static Path tmp;

    static Stream<Arguments> outcomes() {
        String p = "../examples/elementwise-chain.json";
        return Stream.of(
                Arguments.of(0, new String[] {"validate", p, "--json"}),
                Arguments.of(2, new String[] {"validate", "missing.json", "--json"}),
                Arguments.of(2, new String[] {"validate", "--json"}),
                Arguments.of(2, new String[] {"validate", p, "--json", "--no-such-option"}),
                Arguments.of(0, new String[] {"run", p, "--random", "1", "--out", "OUT", "--json"}),
                Arguments.of(2, new String[] {"run", p, "--out", "OUT", "--json"}),
                Arguments.of(2, new String[] {"run", p, "--random", "1", "--out", "/dev/null", "--json"}),
                Arguments.of(2, new String[] {"run", p, "--random", "x", "--out", "OUT", "--json"}),
                Arguments.of(2, new String[] {"run", "--json"}),
                Arguments.of(2, new String[] {"run", p, "--random", "1", "--out", "OUT", "--stop-at-nonfinite=maybe", "--json"}),
                Arguments.of(2, new String[] {"verify", "missing.json", "--json"}),
                Arguments.of(0, new String[] {"verify", p, "--sarif", "/dev/null", "--json"}),
                Arguments.of(2, new String[] {"verify", p, "--sarif", "/dev/full", "--json"}),
                Arguments.of(0, new String[] {"verify", p, "--json"}),
                Arguments.of(2, new String[] {"author", "--model", "huge", "--cut", "decode", "--ctx", "4", "--out", "A", "--json"}),
                Arguments.of(2, new String[] {"author", "--json"}),
                Arguments.of(2, new String[] {"author", "--model", "tiny", "--cut", "decode", "--ctx", "4", "--weights", "i32", "--out", "A", "--json"}),
                Arguments.of(2, new String[] {"bench", "decode", "--steps", "0", "--json"}),
                Arguments.of(2, new String[] {"bench", "interp", "--size", "0", "--json"}),
                Arguments.of(2, new String[] {"bench", "--json"}),
                Arguments.of(2, new String[] {"reduce", p, "--inputs", "no-such-dir", "--test", "true", "--out", "A", "--json"}),
                Arguments.of(2, new String[] {"reduce", p, "--inputs", ".", "--test", "true", "--out", "/dev/null", "--json"}),
                Arguments.of(2, new String[] {"--json"}),
                Arguments.of(2, new String[] {"nonsense", "--json"}),
                Arguments.of(0, new String[] {"run", "--help", "--json"}),
                Arguments.of(0, new String[] {"--version", "--json"}));
    }

    @ParameterizedTest
    @MethodSource("outcomes")
    void everyOutcomeIsOneJsonDocument(int exit, String[] args) throws Exception {
        String[] resolved = Stream.of(args).map(a -> a.equals("OUT") ? tmp.resolve("out").toString()
                : a.equals("A") ? tmp.resolve("a" + System.nanoTime()).toString() : a).toArray(String[]::new);
        CliRunner r = CliRunner.run(resolved);
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(exit);
        JsonNode doc = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).readTree(r.out());
        assertThat(doc.isObject()).as(r.out()).isTrue();
        assertThat(doc.has("command")).isTrue();
        assertThat(doc.get("holds").asBoolean()).isEqualTo(exit == 0);
        if (doc.has("exitCode")) {
            assertThat(doc.get("exitCode").asInt()).isEqualTo(exit);
        }
        if (exit == 2) {
            assertThat(doc.get("error").asText()).isNotBlank();
            assertThat(doc.get("status").asText()).isIn("bad-input", "usage-error");
        }
        assertThat(Files.exists(Path.of("OUT"))).isFalse();
    }
}
