package org.stagecheck.spec.json;

import com.fasterxml.jackson.core.JsonToken;
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
 * One builder reads one document, or the items of one streamed array that another builder
 * recorded ({@link TokenTape}); it is not shared between threads.
 */
final class TreeBuilder {
    /** Strings longer than this are unlikely to repeat (stage ids, expressions): not cached. */
    private static final int CACHED_MAX_CHARS = 24;
    private static final int TEXT_CACHE_SLOTS = 1 << 14;
    private static final int KEY_SHAPE_SLOTS = 1 << 12;

    /** Objects with more keys than this look duplicates up in a hash set, smaller ones by scanning. */
    private static final int SCANNED_KEYS_MAX = 12;

    /** The tokens being read: the parser's, or one recorded item's. */
    private TokenSource tokens;
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
    TreeBuilder(TokenSource tokens, boolean checkDuplicates) {
        this(tokens, checkDuplicates, null);
    }

    /**
     * @param tokens   what the tree is built of (null: only recorded items, {@link #build})
     * @param streamed when not null, the items of the root object's array field
     *     {@link StreamedArray#field()} are recorded on its tapes one by one instead of kept
     *     (the tokens must then be the parser's), and the tree holds an empty array at that
     *     array's position in their place
     */
    TreeBuilder(TokenSource tokens, boolean checkDuplicates, StreamedArray streamed) {
        this.tokens = tokens;
        this.checkDuplicates = checkDuplicates;
        this.streamed = streamed;
    }

    /** The tree of the recorded item {@code item}, read from its first token to its last. */
    JNode build(TokenTape.Item item) throws IOException, JsonFormatException, DuplicateKeyException {
        tokens = item;
        item.next();
        return readValue();
    }

    /** Reads the value whose first token is the current token. */
    JNode readValue() throws IOException, JsonFormatException, DuplicateKeyException {
        long at = tokens.where();
        JsonToken t = tokens.current();
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
        while (tokens.next() == JsonToken.FIELD_NAME) {
            String name = tokens.name();
            if (checkDuplicates) {
                int n = top - base;
                if (n < SCANNED_KEYS_MAX) {
                    for (int i = base; i < top; i++) {
                        if (keyStack[i].equals(name)) {
                            throw new DuplicateKeyException(name, Pos.unpack(tokens.where()));
                        }
                    }
                } else {
                    if (wideKeys == null) {
                        wideKeys = new HashSet<>(Arrays.asList(keyStack).subList(base, top));
                    }
                    if (!wideKeys.add(name)) {
                        throw new DuplicateKeyException(name, Pos.unpack(tokens.where()));
                    }
                }
            }
            JsonToken valueToken = tokens.next();
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
        while (tokens.next() != JsonToken.END_ARRAY) {
            push(null, readValue());
        }
        depth--;
        JNode[] items = Arrays.copyOfRange(valueStack, base, top);
        Arrays.fill(valueStack, base, top, null);
        top = base;
        return new JNode.JArray(NodeList.owning(items), at);
    }

    /**
     * Reads the array whose START_ARRAY is the current token (the parser's), recording each item
     * on {@link #streamed}'s tape with the bytes it spans instead of building its tree here: the
     * stream builds it (and finds its duplicate keys) as any other value's, on the thread it
     * chooses.
     */
    private JNode readStreamedArray() throws IOException, JsonFormatException, DuplicateKeyException {
        if (!(tokens instanceof ParserTokens parser)) {
            throw new IllegalStateException("only the parser's tokens are streamed, not a recorded item's");
        }
        long at = parser.where();
        depth++;
        int index = 0;
        while (parser.next() != JsonToken.END_ARRAY) {
            long start = parser.tokenByte();
            long where = parser.where();
            JsonToken first = parser.current();
            streamed.tape().record(parser);
            // an object or array ends on its closing token; a scalar's end is not needed (nothing lies inside it)
            long end = first == JsonToken.START_OBJECT || first == JsonToken.START_ARRAY ? parser.tokenByte() + 1 : -1;
            streamed.item(index++, where, start, end);
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
        int len = tokens.textLength();
        if (len > CACHED_MAX_CHARS) {
            return tokens.text();
        }
        char[] buf = tokens.textChars();
        int off = tokens.textOffset();
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
}
