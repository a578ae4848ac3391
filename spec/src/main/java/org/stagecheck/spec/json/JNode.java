package org.stagecheck.spec.json;

import java.util.List;
import java.util.Map;

/**
 * A JSON value that remembers where it was read, so that every later diagnostic (a wrong type
 * here, a dangling reference found by the validator) can name line and column. Jackson's own
 * tree forgets positions; this one is built from Jackson's streaming parser by {@link JsonReader}.
 *
 * <p>A million-stage program has tens of millions of values (a program file's stages are
 * streamed and never held as one tree, but strings and other documents are read whole), so each
 * node is kept small (docs/format.md, "Reading speed"): the position is a
 * {@link Pos#packed() packed} {@code long} component ({@code where}) and {@link #pos()} makes the
 * {@link Pos} only when asked; objects and arrays hold compact immutable collections. The
 * constructors that take a {@link Pos} remain for code that builds trees by hand.
 */
public sealed interface JNode {
    /** The {@link Pos#packed() packed} position: each record's {@code where} component. */
    long where();

    /** Line and column of the value's first character, {@link Pos#UNKNOWN} when not read from text. */
    default Pos pos() {
        return Pos.unpack(where());
    }

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

    /** An object; {@code fields} is immutable and iterates in the order the fields were written. */
    record JObject(Map<String, JNode> fields, long where) implements JNode {
        public JObject {
            // The reader's own maps are immutable already; anything else is copied once.
            fields = fields instanceof NodeMap m ? m : NodeMap.copyOf(fields);
        }

        public JObject(Map<String, JNode> fields, Pos pos) {
            this(fields, pos.packed());
        }

        /** The fields as the reader's own map, for index-based access while decoding. */
        NodeMap nodeMap() {
            return (NodeMap) fields;
        }
    }

    /** An array; {@code items} is immutable. */
    record JArray(List<JNode> items, long where) implements JNode {
        public JArray {
            items = items instanceof NodeList l ? l : NodeList.copyOf(items);
        }

        public JArray(List<JNode> items, Pos pos) {
            this(items, pos.packed());
        }
    }

    record JString(String value, long where) implements JNode {
        public JString(String value, Pos pos) {
            this(value, pos.packed());
        }
    }

    /**
     * A number as written. It is {@link #integral()} when it has no fraction or exponent, which
     * the JSON grammar lets the text alone decide, so it is not stored.
     */
    record JNumber(String text, long where) implements JNode {
        public JNumber(String text, Pos pos) {
            this(text, pos.packed());
        }

        public boolean integral() {
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (c == '.' || c == 'e' || c == 'E') {
                    return false;
                }
            }
            return true;
        }
    }

    record JBool(boolean value, long where) implements JNode {
        public JBool(boolean value, Pos pos) {
            this(value, pos.packed());
        }
    }

    record JNull(long where) implements JNode {
        public JNull(Pos pos) {
            this(pos.packed());
        }
    }

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
