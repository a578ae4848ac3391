package org.stagecheck.spec.json;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.base.ParserBase;
import java.io.IOException;

/** The tokens of Jackson's streaming parser, positioned as {@link JsonLocation}s place them. */
record ParserTokens(JsonParser parser) implements TokenSource {
    @Override
    public JsonToken next() throws IOException {
        return parser.nextToken();
    }

    @Override
    public JsonToken current() {
        return parser.currentToken();
    }

    @Override
    public String name() throws IOException {
        return parser.currentName();
    }

    /**
     * The packed position of the current token, as {@code where(parser.currentTokenLocation())}
     * gives it, without the {@link JsonLocation} Jackson makes per call (one per value: tens of
     * millions in a large program). Jackson's token column there is {@code getTokenColumnNr() - 1}
     * (CompactTreeTest compares the two on random documents); a parser that is not Jackson's own
     * base class, or a column it does not know, takes the location.
     */
    @Override
    public long where() {
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

    /** The byte offset in the input where the current token starts. */
    long tokenByte() {
        return parser.currentTokenLocation().getByteOffset();
    }

    @Override
    public int textLength() throws IOException {
        return parser.getTextLength();
    }

    @Override
    public char[] textChars() throws IOException {
        return parser.getTextCharacters();
    }

    @Override
    public int textOffset() throws IOException {
        return parser.getTextOffset();
    }

    @Override
    public String text() throws IOException {
        return parser.getText();
    }
}
