package org.stagecheck.spec.json;

import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.Arrays;

/**
 * The tokens of a run of items of a streamed array, recorded as the reading thread meets them:
 * per token its kind, packed position, and text (a field's name, a string's value, a number's
 * digits), in a few growing arrays, with no object per token. The tree of each item is then built
 * from here by another thread ({@link #item}), so that the reading thread only tokenizes
 * (docs/format.md, "Reading speed"); the tree is the one building it from the parser gives.
 *
 * <p>A tape is written by one thread, then handed over whole (through a blocking queue, which
 * orders the writes before the reads) and read by one thread; {@link #clear()} makes it ready to
 * be written again.
 */
final class TokenTape {
    private static final JsonToken[] KINDS = JsonToken.values();

    // small at first: a tape grows to its run of items once, and is then written again and again
    private byte[] kinds = new byte[64];
    private long[] wheres = new long[64];
    /** Per token, where its text ends in {@link #chars}; it starts where the previous token's ends. */
    private int[] textEnds = new int[64];
    /** Per token, a field's name (the parser's canonical instance), else null. */
    private String[] names = new String[64];
    private char[] chars = new char[256];
    private int tokens;
    private int charCount;

    private int[] itemStarts = new int[8];
    private int items;

    /** The number of items recorded. */
    int items() {
        return items;
    }

    /**
     * Records the item whose first token is {@code source}'s current one, through its last
     * token (the end of its object or array, or the scalar itself), leaving that token current.
     */
    void record(ParserTokens source) throws IOException {
        if (items == itemStarts.length) {
            itemStarts = Arrays.copyOf(itemStarts, items * 2);
        }
        itemStarts[items++] = tokens;
        int depth = 0;
        JsonToken t = source.current();
        while (true) {
            add(t, source);
            switch (t) {
                case START_OBJECT, START_ARRAY -> depth++;
                case END_OBJECT, END_ARRAY -> depth--;
                // the other tokens leave the depth as it is; JsonToken is Jackson's enum, so its
                // values past those (and any a later Jackson adds) are one answer
                default -> { }
            }
            if (depth == 0) {
                return;
            }
            t = source.next();
            if (t == null) {
                // the parser ends the input only after a complete value, so this is never reached
                throw new IOException("the input ended inside an item of the streamed array");
            }
        }
    }

    private void add(JsonToken t, ParserTokens source) throws IOException {
        if (tokens == kinds.length) {
            int grown = tokens * 2;
            kinds = Arrays.copyOf(kinds, grown);
            wheres = Arrays.copyOf(wheres, grown);
            textEnds = Arrays.copyOf(textEnds, grown);
            names = Arrays.copyOf(names, grown);
        }
        kinds[tokens] = (byte) t.ordinal();
        wheres[tokens] = source.where();
        switch (t) {
            case FIELD_NAME -> names[tokens] = source.name();
            case VALUE_STRING, VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> {
                int length = source.textLength();
                if (charCount + length > chars.length) {
                    chars = Arrays.copyOf(chars, Math.max(chars.length * 2, charCount + length));
                }
                System.arraycopy(source.textChars(), source.textOffset(), chars, charCount, length);
                charCount += length;
            }
            default -> { }
        }
        textEnds[tokens] = charCount;
        tokens++;
    }

    /** Forgets every token and item, keeping the arrays. */
    void clear() {
        Arrays.fill(names, 0, tokens, null);
        tokens = 0;
        charCount = 0;
        items = 0;
    }

    /** The tokens of item {@code k}, to build its tree from. */
    Item item(int k) {
        return new Item(this, itemStarts[k]);
    }

    /** One recorded item's tokens, read from its first (current once {@link #next()} is called) to its last. */
    static final class Item implements TokenSource {
        private final TokenTape tape;
        private final int first;
        private int at;
        private int depth;

        private Item(TokenTape tape, int first) {
            this.tape = tape;
            this.first = first;
            this.at = first - 1;
        }

        @Override
        public JsonToken next() {
            if (at >= first && depth == 0) {
                return null; // past the item's last token
            }
            at++;
            JsonToken t = current();
            switch (t) {
                case START_OBJECT, START_ARRAY -> depth++;
                case END_OBJECT, END_ARRAY -> depth--;
                default -> { }
            }
            return t;
        }

        @Override
        public JsonToken current() {
            return KINDS[tape.kinds[at]];
        }

        @Override
        public String name() {
            return tape.names[at];
        }

        @Override
        public long where() {
            return tape.wheres[at];
        }

        private int textStart() {
            return at == 0 ? 0 : tape.textEnds[at - 1];
        }

        @Override
        public int textLength() {
            return tape.textEnds[at] - textStart();
        }

        @Override
        public char[] textChars() {
            return tape.chars;
        }

        @Override
        public int textOffset() {
            return textStart();
        }

        @Override
        public String text() {
            return new String(tape.chars, textStart(), textLength());
        }
    }
}
