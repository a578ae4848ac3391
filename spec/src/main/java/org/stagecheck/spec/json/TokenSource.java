package org.stagecheck.spec.json;

import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/**
 * The tokens a {@link TreeBuilder} makes a tree of: Jackson's parser reading the text
 * ({@link ParserTokens}), or the tokens of one item of a streamed array recorded from it
 * ({@link TokenTape.Item}), so that the tree of that item is built on another thread than the one
 * that reads the text (docs/format.md, "Reading speed").
 */
sealed interface TokenSource permits ParserTokens, TokenTape.Item {
    /** Moves to the next token and returns it (null past the end of the input or of the item). */
    JsonToken next() throws IOException;

    /** The current token. */
    JsonToken current();

    /** The current {@link JsonToken#FIELD_NAME}'s name. */
    String name() throws IOException;

    /** The packed position ({@link Pos#pack}) of the current token. */
    long where();

    /** The length of the current value token's text (a string's value, a number's digits). */
    int textLength() throws IOException;

    /** The characters holding that text from {@link #textOffset()} on; read them before moving on. */
    char[] textChars() throws IOException;

    int textOffset() throws IOException;

    /** That text as a string. */
    String text() throws IOException;
}
