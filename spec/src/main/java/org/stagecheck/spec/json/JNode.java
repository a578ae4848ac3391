package org.stagecheck.spec.json;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A JSON value that remembers where it was read, so that every later diagnostic (a wrong type
 * here, a dangling reference found by the validator) can name line and column. Jackson's own
 * tree forgets positions; this one is built from Jackson's streaming parser by {@link JsonReader}.
 */
public sealed interface JNode {
    Pos pos();

    /** Human name of the JSON type, for "expected X, found Y" messages. */
    default String typeName() {
        return switch (this) {
            case JObject o -> "an object";
            case JArray a -> "an array";
            case JString s -> "a string";
            case JNumber n -> "a number";
            case JBool b -> "a boolean";
            case JNull n -> "null";
        };
    }

    record JObject(Map<String, JNode> fields, Pos pos) implements JNode {
        public JObject {
            fields = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(fields));
        }
    }

    record JArray(List<JNode> items, Pos pos) implements JNode {
        public JArray {
            items = List.copyOf(items);
        }
    }

    record JString(String value, Pos pos) implements JNode {}

    /** A number as written; {@code integral} when it has no fraction or exponent. */
    record JNumber(String text, boolean integral, Pos pos) implements JNode {}

    record JBool(boolean value, Pos pos) implements JNode {}

    record JNull(Pos pos) implements JNode {}

    /**
     * The node at JSON pointer {@code pointer} (e.g. {@code /stages/3/kind/op}), or the deepest
     * node on the way when the pointer leaves the tree.
     */
    static JNode at(JNode root, String pointer) {
        JNode cur = root;
        if (pointer == null || pointer.isEmpty() || pointer.equals("/")) {
            return cur;
        }
        for (String raw : pointer.substring(1).split("/", -1)) {
            String part = raw.replace("~1", "/").replace("~0", "~");
            JNode next = switch (cur) {
                case JObject o -> o.fields().get(part);
                case JArray a -> {
                    try {
                        int i = Integer.parseInt(part);
                        yield i >= 0 && i < a.items().size() ? a.items().get(i) : null;
                    } catch (NumberFormatException e) {
                        yield null;
                    }
                }
                case JString s -> null;
                case JNumber n -> null;
                case JBool b -> null;
                case JNull n -> null;
            };
            if (next == null) {
                return cur;
            }
            cur = next;
        }
        return cur;
    }
}
