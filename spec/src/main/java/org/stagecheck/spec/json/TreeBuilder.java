package org.stagecheck.spec.json;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.base.ParserBase;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * Builds one {@link JNode} tree from a streaming parser, allocating little (docs/format.md,
 * "Reading speed"): the children of the objects and arrays being read wait on one shared stack
 * and are copied once into an exact-size array when their container closes; short strings and
 * numbers that repeat ({@code "f32"}, {@code "x.0"}, {@code 0}) are shared through a small cache;
 * objects with the same keys in the same order share one key array. Positions are packed longs.
 * One builder reads one document; it is not shared between threads.
 */
final class TreeBuilder {
    /** Strings longer than this are unlikely to repeat (stage ids, expressions): not cached. */
    private static final int CACHED_MAX_CHARS = 24;
    private static final int TEXT_CACHE_SLOTS = 1 << 14;
    private static final int KEY_SHAPE_SLOTS = 1 << 12;

    /** Objects with more keys than this look duplicates up in a hash set, smaller ones by scanning. */
    private static final int SCANNED_KEYS_MAX = 12;

    private final JsonParser parser;
    private final boolean checkDuplicates;
    /** Takes the items of one array field of the root object as they are read; null: the tree keeps every value. */
    private final StreamedArray streamed;
    /** How many objects and arrays enclose the value being read (1 inside the root object's fields). */
    private int depth;

    private JNode[] valueStack = new JNode[256];
    private String[] keyStack = new String[256];
    private int top;

    /** Direct-mapped: a slot holds the last short text that hashed there. */
    private final String[] textCache = new String[TEXT_CACHE_SLOTS];
    /** Open addressing over key arrays; once full, new shapes are simply not shared. */
    private final String[][] keyShapes = new String[KEY_SHAPE_SLOTS][];
    private int keyShapeCount;

    /**
     * @param checkDuplicates whether to look for a key repeated in one object (false when the
     *     parser does so itself)
     */
    TreeBuilder(JsonParser parser, boolean checkDuplicates) {
        this(parser, checkDuplicates, null);
    }

    /**
     * @param streamed when not null, the items of the root object's array field
     *     {@link StreamedArray#field()} go to it one by one, and the tree holds an empty array at
     *     that array's position in its place
     */
    TreeBuilder(JsonParser parser, boolean checkDuplicates, StreamedArray streamed) {
        this.parser = parser;
        this.checkDuplicates = checkDuplicates;
        this.streamed = streamed;
    }

    /** Reads the value whose first token is the parser's current token. */
    JNode readValue() throws IOException, JsonFormatException, DuplicateKeyException {
        long at = valueWhere();
        JsonToken t = parser.currentToken();
        return switch (t) {
            case START_OBJECT -> readObject(at);
            case START_ARRAY -> readArray(at);
            case VALUE_STRING -> new JNode.JString(text(), at);
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> new JNode.JNumber(text(), at);
            case VALUE_TRUE -> new JNode.JBool(true, at);
            case VALUE_FALSE -> new JNode.JBool(false, at);
            case VALUE_NULL -> new JNode.JNull(at);
            // JsonToken is Jackson's enum, not the IR: the tokens that cannot start a value (END_*,
            // FIELD_NAME, NOT_AVAILABLE, VALUE_EMBEDDED_OBJECT, and any a later Jackson adds) are one
            // answer, and listing them would tie this switch to Jackson's version, not to our format
            default -> throw new JsonFormatException("", Pos.unpack(at), "unexpected token " + t);
        };
    }

    private JNode readObject(long at) throws IOException, JsonFormatException, DuplicateKeyException {
        depth++;
        int base = top;
        Set<String> wideKeys = null;
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            if (checkDuplicates) {
                int n = top - base;
                if (n < SCANNED_KEYS_MAX) {
                    for (int i = base; i < top; i++) {
                        if (keyStack[i].equals(name)) {
                            throw new DuplicateKeyException(name, Pos.unpack(where(parser.currentTokenLocation())));
                        }
                    }
                } else {
                    if (wideKeys == null) {
                        wideKeys = new HashSet<>(Arrays.asList(keyStack).subList(base, top));
                    }
                    if (!wideKeys.add(name)) {
                        throw new DuplicateKeyException(name, Pos.unpack(where(parser.currentTokenLocation())));
                    }
                }
            }
            JsonToken valueToken = parser.nextToken();
            JNode value = depth == 1 && streamed != null && valueToken == JsonToken.START_ARRAY && name.equals(streamed.field())
                    ? readStreamedArray()
                    : readValue();
            push(name, value);
        }
        depth--;
        int n = top - base;
        JNode[] values = Arrays.copyOfRange(valueStack, base, top);
        String[] keys = sharedKeys(base, n);
        Arrays.fill(valueStack, base, top, null);
        top = base;
        return new JNode.JObject(new NodeMap(keys, values), at);
    }

    private JNode readArray(long at) throws IOException, JsonFormatException, DuplicateKeyException {
        depth++;
        int base = top;
        while (parser.nextToken() != JsonToken.END_ARRAY) {
            push(null, readValue());
        }
        depth--;
        JNode[] items = Arrays.copyOfRange(valueStack, base, top);
        Arrays.fill(valueStack, base, top, null);
        top = base;
        return new JNode.JArray(NodeList.owning(items), at);
    }

    /**
     * Reads the array whose START_ARRAY is the current token, handing each item to
     * {@link #streamed} with the bytes it spans instead of keeping it: an item is read (and its
     * duplicate keys found) exactly as any other value, then dropped.
     */
    private JNode readStreamedArray() throws IOException, JsonFormatException, DuplicateKeyException {
        long at = valueWhere();
        depth++;
        int index = 0;
        while (parser.nextToken() != JsonToken.END_ARRAY) {
            long start = parser.currentTokenLocation().getByteOffset();
            JNode item = readValue();
            // an object or array ends on its closing token; a scalar's end is not needed (nothing lies inside it)
            long end = item instanceof JNode.JObject || item instanceof JNode.JArray ? parser.currentTokenLocation().getByteOffset() + 1 : -1;
            streamed.item(index++, item, start, end);
        }
        depth--;
        JNode.JArray placeholder = new JNode.JArray(NodeList.EMPTY, at);
        streamed.ended(placeholder);
        return placeholder;
    }

    private void push(String key, JNode value) {
        if (top == valueStack.length) {
            valueStack = Arrays.copyOf(valueStack, top * 2);
            keyStack = Arrays.copyOf(keyStack, top * 2);
        }
        keyStack[top] = key;
        valueStack[top] = value;
        top++;
    }

    /** The keys at {@code keyStack[base, base+n)} as an array shared with earlier objects of that shape. */
    private String[] sharedKeys(int base, int n) {
        int h = n;
        for (int i = base; i < base + n; i++) {
            h = 31 * h + keyStack[i].hashCode();
        }
        int mask = KEY_SHAPE_SLOTS - 1;
        for (int slot = (h ^ (h >>> 16)) & mask; ; slot = (slot + 1) & mask) {
            String[] shape = keyShapes[slot];
            if (shape == null) {
                String[] keys = Arrays.copyOfRange(keyStack, base, base + n);
                Arrays.fill(keyStack, base, base + n, null);
                // Keep a quarter of the table free so that probing stays short.
                if (keyShapeCount < KEY_SHAPE_SLOTS * 3 / 4) {
                    keyShapes[slot] = keys;
                    keyShapeCount++;
                }
                return keys;
            }
            if (sameKeys(shape, base, n)) {
                Arrays.fill(keyStack, base, base + n, null);
                return shape;
            }
        }
    }

    private boolean sameKeys(String[] shape, int base, int n) {
        if (shape.length != n) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            String k = keyStack[base + i];
            if (shape[i] != k && !shape[i].equals(k)) {
                return false;
            }
        }
        return true;
    }

    /** The current token's text, shared with an equal earlier one when it is short. */
    private String text() throws IOException {
        int len = parser.getTextLength();
        if (len > CACHED_MAX_CHARS) {
            return parser.getText();
        }
        char[] buf = parser.getTextCharacters();
        int off = parser.getTextOffset();
        int h = 0;
        for (int i = off; i < off + len; i++) {
            h = 31 * h + buf[i];
        }
        int slot = (h ^ (h >>> 14)) & (TEXT_CACHE_SLOTS - 1);
        String cached = textCache[slot];
        if (cached != null && equals(cached, buf, off, len)) {
            return cached;
        }
        String s = new String(buf, off, len);
        textCache[slot] = s;
        return s;
    }

    private static boolean equals(String s, char[] buf, int off, int len) {
        if (s.length() != len) {
            return false;
        }
        for (int i = 0; i < len; i++) {
            if (s.charAt(i) != buf[off + i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * The packed position of the current token, a value (not a field name), as
     * {@code where(parser.currentTokenLocation())} gives it, without the {@link JsonLocation}
     * Jackson makes per call (one per value: tens of millions in a large program). Jackson's
     * token column there is {@code getTokenColumnNr() - 1} (CompactTreeTest compares the two on
     * random documents); a parser that is not Jackson's own base class, or a column it does not
     * know, takes the location.
     */
    private long valueWhere() {
        if (parser instanceof ParserBase base) {
            int column = base.getTokenColumnNr() - 1;
            if (column >= 1) {
                int line = base.getTokenLineNr();
                return line < 1 ? Pos.UNKNOWN_PACKED : Pos.pack(line, column);
            }
        }
        return where(parser.currentTokenLocation());
    }

    static long where(JsonLocation loc) {
        if (loc == null || loc.getLineNr() < 1) {
            return Pos.UNKNOWN_PACKED;
        }
        return Pos.pack(loc.getLineNr(), loc.getColumnNr());
    }
}
