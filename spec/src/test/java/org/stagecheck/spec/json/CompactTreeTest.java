package org.stagecheck.spec.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.stagecheck.proptest.Draw;
import org.stagecheck.proptest.SeededProperty;

/**
 * The compact tree (docs/format.md, "Reading speed") against the tree it replaced: for random
 * JSON documents, every value, key order, number text, integral flag and line:column is what
 * Jackson's streaming parser reports token by token (the old reader's way: a
 * {@code currentTokenLocation()} and a fresh string per value), and a duplicate key gives the
 * same error on every way of reading (string, stream, file).
 */
@Tag("slow")
class CompactTreeTest {

    /** Jackson's view of a document, token by token, as the old reader built it. */
    private static String referenceDump(String json) throws IOException {
        JsonFactory f = JsonFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
        try (JsonParser p = f.createParser(json)) {
            p.nextToken();
            StringBuilder sb = new StringBuilder();
            referenceValue(p, sb);
            return sb.toString();
        }
    }

    private static void referenceValue(JsonParser p, StringBuilder sb) throws IOException {
        JsonLocation loc = p.currentTokenLocation();
        String at = "@" + loc.getLineNr() + ":" + loc.getColumnNr();
        switch (p.currentToken()) {
            case START_OBJECT -> {
                sb.append("{").append(at);
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    sb.append(" ").append(quote(p.currentName())).append(":");
                    p.nextToken();
                    referenceValue(p, sb);
                }
                sb.append("}");
            }
            case START_ARRAY -> {
                sb.append("[").append(at);
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    sb.append(" ");
                    referenceValue(p, sb);
                }
                sb.append("]");
            }
            case VALUE_STRING -> sb.append("s").append(quote(p.getText())).append(at);
            case VALUE_NUMBER_INT -> sb.append("i").append(p.getText()).append(at);
            case VALUE_NUMBER_FLOAT -> sb.append("f").append(p.getText()).append(at);
            case VALUE_TRUE -> sb.append("true").append(at);
            case VALUE_FALSE -> sb.append("false").append(at);
            case VALUE_NULL -> sb.append("null").append(at);
            default -> throw new IllegalStateException("token " + p.currentToken());
        }
    }

    /** The same dump from our tree: any lost position, reordered key or changed text shows. */
    private static String dump(JNode n) {
        StringBuilder sb = new StringBuilder();
        dump(n, sb);
        return sb.toString();
    }

    private static void dump(JNode n, StringBuilder sb) {
        String at = "@" + n.pos().line() + ":" + n.pos().column();
        switch (n) {
            case JNode.JObject o -> {
                sb.append("{").append(at);
                for (var e : o.fields().entrySet()) {
                    sb.append(" ").append(quote(e.getKey())).append(":");
                    // get() must find what iteration shows, in small and indexed objects alike
                    assertThat(o.fields().get(e.getKey())).isSameAs(e.getValue());
                    dump(e.getValue(), sb);
                }
                sb.append("}");
            }
            case JNode.JArray a -> {
                sb.append("[").append(at);
                for (JNode item : a.items()) {
                    sb.append(" ");
                    dump(item, sb);
                }
                sb.append("]");
            }
            case JNode.JString s -> sb.append("s").append(quote(s.value())).append(at);
            case JNode.JNumber num -> sb.append(num.integral() ? "i" : "f").append(num.text()).append(at);
            case JNode.JBool b -> sb.append(b.value()).append(at);
            case JNode.JNull x -> sb.append("null").append(at);
        }
    }

    private static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        s.codePoints().forEach(c -> sb.append(c < 0x20 || c == '"' || c == '\\' ? String.format("\\u%04x", c) : Character.toString(c)));
        return sb.append('"').toString();
    }

    // ------------------------------------------------------------------ random documents

    private static final String[] KEYS = {"a", "b", "id", "type", "x.0", "é", "k\\u0041", "\\n", "shape",
            "c", "d", "e", "f", "g", "h", "i", "j", "l", "m", "n", "o", "p", "q", "r"};
    private static final String[] WHITESPACE = {"", " ", "  ", "\n", "\r\n", "\t", "\n    "};

    /** A random document; with {@code duplicates}, some objects repeat a key. */
    static String randomDocument(SplittableRandom r, boolean duplicates) {
        StringBuilder sb = new StringBuilder();
        value(r, sb, 0, duplicates);
        return sb.toString();
    }

    private static void ws(SplittableRandom r, StringBuilder sb) {
        sb.append(WHITESPACE[r.nextInt(WHITESPACE.length)]);
    }

    private static void value(SplittableRandom r, StringBuilder sb, int depth, boolean duplicates) {
        ws(r, sb);
        // the top is an object; below depth 4 only scalars, so documents stay small
        int kind = depth == 0 ? 0 : depth > 4 ? 4 + r.nextInt(4) : r.nextInt(8);
        switch (kind) {
            case 0, 1 -> {
                // objects of up to 70 fields: the linear and the indexed lookups, the scanned and hashed duplicate checks
                int n = r.nextInt(10) == 0 ? r.nextInt(70) : r.nextInt(6);
                List<String> keys = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    String k = i < KEYS.length && r.nextBoolean() ? KEYS[i] : "k" + i + (r.nextBoolean() ? "é" : "");
                    keys.add(k);
                }
                if (duplicates && n > 1 && r.nextInt(3) == 0) {
                    keys.set(1 + r.nextInt(n - 1), keys.get(r.nextInt(n - 1)));
                }
                sb.append('{');
                for (int i = 0; i < n; i++) {
                    if (i > 0) {
                        sb.append(',');
                    }
                    ws(r, sb);
                    sb.append('"').append(keys.get(i)).append('"');
                    ws(r, sb);
                    sb.append(':');
                    value(r, sb, depth + 1, duplicates);
                }
                ws(r, sb);
                sb.append('}');
            }
            case 2, 3 -> {
                int n = r.nextInt(7);
                sb.append('[');
                for (int i = 0; i < n; i++) {
                    if (i > 0) {
                        sb.append(',');
                    }
                    value(r, sb, depth + 1, duplicates);
                }
                ws(r, sb);
                sb.append(']');
            }
            case 4, 5 -> sb.append('"').append(randomString(r)).append('"');
            case 6 -> sb.append(randomNumber(r));
            default -> sb.append(switch (r.nextInt(3)) {
                case 0 -> "true";
                case 1 -> "false";
                default -> "null";
            });
        }
        ws(r, sb);
    }

    private static String randomString(SplittableRandom r) {
        // short strings from a tiny alphabet repeat and collide in the text cache; long ones pass it by
        int len = r.nextInt(5) == 0 ? 20 + r.nextInt(20) : r.nextInt(4);
        String alphabet = "abAB\u00e9\u4e00";
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < len; i++) {
            switch (r.nextInt(12)) {
                case 0 -> sb.append("\\\"");
                case 1 -> sb.append("\\u0041");
                case 2 -> sb.append("\\n");
                default -> sb.append(alphabet.charAt(r.nextInt(alphabet.length())));
            }
        }
        return sb.toString();
    }

    private static String randomNumber(SplittableRandom r) {
        return switch (r.nextInt(7)) {
            case 0 -> "0";
            case 1 -> "-0";
            case 2 -> Integer.toString(r.nextInt(10));
            case 3 -> Long.toString(r.nextLong());
            case 4 -> r.nextInt(100) + "." + r.nextInt(100);
            case 5 -> r.nextInt(9) + 1 + "e" + (r.nextBoolean() ? "-" : "") + r.nextInt(30);
            default -> "-" + r.nextInt(1000) + "E+" + r.nextInt(5);
        };
    }

    // ------------------------------------------------------------------ properties

    @SeededProperty(tries = 300)
    void everyWayOfReadingGivesJacksonsValuesAndPositions(long seed) throws Exception {
        String json = randomDocument(new SplittableRandom(seed), false);
        String expected = referenceDump(json);
        assertThat(dump(new JsonReader().read(json))).isEqualTo(expected);
        // Columns of the byte reader count bytes, like Jackson's: the reference is the byte parser's.
        String expectedFromBytes = referenceDumpFromBytes(json);
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        assertThat(dump(new JsonReader().read(new ByteArrayInputStream(bytes)))).isEqualTo(expectedFromBytes);
        Path file = Files.createTempFile("compact-tree", ".json");
        try {
            Files.write(file, bytes);
            assertThat(dump(new JsonReader().read(file))).isEqualTo(expectedFromBytes);
        } finally {
            Files.delete(file);
        }
    }

    private static String referenceDumpFromBytes(String json) throws IOException {
        JsonFactory f = JsonFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
        try (JsonParser p = f.createParser(json.getBytes(StandardCharsets.UTF_8))) {
            p.nextToken();
            StringBuilder sb = new StringBuilder();
            referenceValue(p, sb);
            return sb.toString();
        }
    }

    /** Reading the text, the stream (Jackson's own check) and the file (ours, then Jackson's) agree on every outcome. */
    @SeededProperty(tries = 300)
    void aDuplicateKeyIsTheSameErrorOnEveryWayOfReading(long seed) throws Exception {
        String json = randomDocument(new SplittableRandom(seed), true);
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        String fromStream = outcome(() -> new JsonReader().read(new ByteArrayInputStream(bytes)));
        Path file = Files.createTempFile("compact-tree", ".json");
        try {
            Files.write(file, bytes);
            assertThat(outcome(() -> new JsonReader().read(file))).isEqualTo(fromStream);
        } finally {
            Files.delete(file);
        }
        assertThat(outcome(() -> new JsonReader().read(json))).isEqualTo(referenceOutcome(json));
    }

    /** What Jackson with its own duplicate check makes of the text, in the reader's message format. */
    private static String referenceOutcome(String json) throws IOException {
        try {
            return "tree " + referenceDump(json);
        } catch (com.fasterxml.jackson.core.JsonParseException e) {
            JsonLocation l = e.getLocation();
            return "error " + l.getLineNr() + ":" + l.getColumnNr() + ": malformed JSON: " + e.getOriginalMessage();
        }
    }

    private interface Read {
        JNode read() throws JsonFormatException;
    }

    private static String outcome(Read read) {
        try {
            return "tree " + dump(read.read());
        } catch (JsonFormatException e) {
            return "error " + e.getMessage();
        }
    }

    // ------------------------------------------------------------------ examples

    @Test
    void stringsWithTheSameHashAreNotConfusedByTheTextCache() throws JsonFormatException {
        assertThat("Aa".hashCode()).isEqualTo("BB".hashCode());
        JNode n = new JsonReader().read("[\"Aa\", \"BB\", \"Aa\", \"BB\", \"AaAa\", \"BBBB\", \"AaBB\"]");
        assertThat(((JNode.JArray) n).items()).extracting(i -> ((JNode.JString) i).value())
                .containsExactly("Aa", "BB", "Aa", "BB", "AaAa", "BBBB", "AaBB");
    }

    @Test
    void aDuplicateInAWideObjectIsFoundByTheHashedCheckWithJacksonsMessage() {
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < 30; i++) {
            sb.append("\"k").append(i).append("\": ").append(i).append(",\n");
        }
        sb.append("\"k17\": 0}");
        assertThatThrownBy(() -> new JsonReader().read(sb.toString()))
                .isInstanceOf(JsonFormatException.class)
                .hasMessage("31:6: malformed JSON: Duplicate field 'k17'");
    }

    @Test
    void theTreesRecordsKeepTheirAccessorsAndPositionConstructors() {
        Pos at = new Pos(3, 7);
        Map<String, JNode> fields = new LinkedHashMap<>();
        fields.put("z", new JNode.JNumber("1.5e3", at));
        fields.put("a", new JNode.JNull(at));
        JNode.JObject o = new JNode.JObject(fields, at);
        fields.clear();
        assertThat(o.fields().keySet()).containsExactly("z", "a");
        assertThat(o.pos()).isEqualTo(at);
        assertThat(((JNode.JNumber) o.fields().get("z")).integral()).isFalse();
        assertThat(new JNode.JNumber("-12", Pos.UNKNOWN).integral()).isTrue();
        assertThat(new JNode.JString("s", Pos.UNKNOWN).pos()).isSameAs(Pos.UNKNOWN);
        List<JNode> items = new ArrayList<>(List.of(new JNode.JBool(true, at)));
        JNode.JArray a = new JNode.JArray(items, at);
        items.clear();
        assertThat(a.items()).hasSize(1);
        assertThatThrownBy(() -> a.items().add(new JNode.JNull(at))).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> o.fields().put("b", new JNode.JNull(at))).isInstanceOf(UnsupportedOperationException.class);
    }

    /** One decoder parses an expression text once: stages that repeat it share the (immutable) tree. */
    @Test
    void stagesWithTheSameExpressionShareItsParsedTree() throws JsonFormatException {
        String twoRelus = ReaderErrorMessagesTest.VALID.replace(
                "\"ins\": [\"a\"], \"outs\": [\"b\"],\n     \"kind\": {\"type\": \"Compute\", \"op\": {\"type\": \"generic\", \"expr\": \"max(in0, 0.0)\"}}}",
                "\"ins\": [\"a\"], \"outs\": [\"b\"],\n     \"kind\": {\"type\": \"Compute\", \"op\": {\"type\": \"generic\", \"expr\": \"max(in0, 0.0)\"}}},\n"
                        + "    {\"id\": \"relu2\", \"site\": [0, 0, 0], \"ins\": [\"b\"], \"outs\": [\"a\"],\n"
                        + "     \"kind\": {\"type\": \"Compute\", \"op\": {\"type\": \"generic\", \"expr\": \"max(in0, 0.0)\"}}}");
        var stages = new ProgramCodec().read(twoRelus).stages();
        assertThat(stages).hasSize(3);
        var first = ((org.stagecheck.spec.ir.StageKind.Compute) stages.get(1).kind()).op();
        var second = ((org.stagecheck.spec.ir.StageKind.Compute) stages.get(2).kind()).op();
        assertThat(((org.stagecheck.spec.ir.ComputeOp.Generic) second).expr())
                .isSameAs(((org.stagecheck.spec.ir.ComputeOp.Generic) first).expr());
    }

    @SeededProperty(tries = 200)
    void aPackedPositionUnpacksToItself(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        Pos p = new Pos(Draw.anyInt(r), Draw.anyInt(r));
        assertThat(Pos.unpack(p.packed())).isEqualTo(p);
    }
}
