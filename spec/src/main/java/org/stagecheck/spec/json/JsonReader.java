package org.stagecheck.spec.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Reads JSON text into a positioned {@link JNode} tree with Jackson's streaming parser, under
 * stated limits so that no input can exhaust memory or the stack:
 * <ul>
 *   <li>a file is at most {@link #MAX_FILE_BYTES} bytes;</li>
 *   <li>nesting is at most {@link #MAX_DEPTH} levels;</li>
 *   <li>a string is at most {@link #MAX_STRING_CHARS} characters and a number at most
 *       {@link #MAX_NUMBER_CHARS} digits.</li>
 * </ul>
 * Duplicate keys, trailing content and malformed text are errors with line and column.
 */
public final class JsonReader {
    public static final long MAX_FILE_BYTES = 256L << 20;
    public static final int MAX_DEPTH = 64;
    public static final int MAX_STRING_CHARS = 1 << 20;
    public static final int MAX_NUMBER_CHARS = 64;

    /** Jackson checks duplicate keys itself: its message and position are the reference. */
    private final JsonFactory strict;
    /** Duplicate keys are checked by {@link TreeBuilder}, without Jackson's hash set per object. */
    private final JsonFactory fast;

    public JsonReader() {
        this.strict = factory(true);
        this.fast = factory(false);
    }

    private static JsonFactory factory(boolean jacksonChecksDuplicates) {
        return JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder()
                        .maxNestingDepth(MAX_DEPTH)
                        .maxStringLength(MAX_STRING_CHARS)
                        .maxNumberLength(MAX_NUMBER_CHARS)
                        .maxDocumentLength(MAX_FILE_BYTES)
                        .build())
                .configure(StreamReadFeature.STRICT_DUPLICATE_DETECTION, jacksonChecksDuplicates)
                .enable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
                .build();
    }

    /**
     * Reads {@code file}; every failure is a {@link JsonFormatException} with a readable message.
     *
     * <p>The file is read once with the fast factory. Only when that finds a duplicate key is it
     * read again with Jackson's own check, so that the error is word for word and position for
     * position the one Jackson gives: both readings see the same tokens up to that key, so the
     * first error of the second is the duplicate the first one found.
     */
    public JNode read(Path file) throws JsonFormatException {
        return read(file, null);
    }

    /**
     * Reads {@code file} as {@link #read(Path)} does, handing the items of the root object's array
     * field {@link StreamedArray#field()} to {@code streamed} as they are read instead of keeping
     * them in the tree. A duplicate key is reported as by {@link #read(Path)}; the items handed
     * over before it are then to be ignored, as is everything when this throws.
     */
    JNode read(Path file, StreamedArray streamed) throws JsonFormatException {
        long size;
        try {
            size = Files.size(file);
        } catch (NoSuchFileException e) {
            throw new JsonFormatException("", Pos.UNKNOWN, "no such file: " + file);
        } catch (IOException e) {
            throw new JsonFormatException("", Pos.UNKNOWN, "cannot read " + file + ": " + e.getMessage());
        }
        if (Files.isDirectory(file)) {
            throw new JsonFormatException("", Pos.UNKNOWN, file + " is a directory, not a JSON file");
        }
        if (!Files.isRegularFile(file)) {
            // opening a pipe with no writer blocks for ever, and a device may never end: read only files
            throw new JsonFormatException("", Pos.UNKNOWN, file + " is not a regular file (a pipe, device or socket); write it to a file first");
        }
        if (size > MAX_FILE_BYTES) {
            throw new JsonFormatException("", Pos.UNKNOWN,
                    file + " is " + size + " bytes; the limit for a JSON file is " + MAX_FILE_BYTES + " bytes");
        }
        try {
            return readFile(file, fast, streamed);
        } catch (DuplicateKeyException duplicate) {
            scanStrictly(file);
            throw duplicate.asFormatError();
        }
    }

    private JNode readFile(Path file, JsonFactory factory, StreamedArray streamed) throws JsonFormatException, DuplicateKeyException {
        try (InputStream in = Files.newInputStream(file)) {
            return read(in, factory, streamed);
        } catch (IOException e) {
            throw new JsonFormatException("", Pos.UNKNOWN, "cannot read " + file + ": " + e.getMessage());
        }
    }

    /**
     * Reads {@code file}'s tokens with Jackson's duplicate check, building nothing (the file may
     * hold 10^6 stages, whose whole tree would not fit a small heap), and throws the first error
     * the whole reading gives there; returns when there is none (the file changed since).
     */
    private void scanStrictly(Path file) throws JsonFormatException {
        try (InputStream in = Files.newInputStream(file); JsonParser p = strict.createParser(in)) {
            readDocument(p, false, null, false);
        } catch (DuplicateKeyException e) {
            throw new IllegalStateException("the strict reader does not look for duplicates itself", e);
        } catch (JsonFormatException e) {
            throw e;
        } catch (IOException e) {
            throw new JsonFormatException("", Pos.UNKNOWN, "cannot read " + file + ": " + e.getMessage());
        }
    }

    public JNode read(String text) throws JsonFormatException {
        try {
            return read(text, fast);
        } catch (DuplicateKeyException duplicate) {
            try {
                read(text, strict);
            } catch (DuplicateKeyException e) {
                throw new IllegalStateException("the strict reader does not look for duplicates itself", e);
            }
            throw duplicate.asFormatError();
        }
    }

    private JNode read(String text, JsonFactory factory) throws JsonFormatException, DuplicateKeyException {
        try (JsonParser p = factory.createParser(text)) {
            return readDocument(p, factory == fast, null, true);
        } catch (IOException e) {
            throw new JsonFormatException("", Pos.UNKNOWN, "cannot read JSON: " + e.getMessage());
        }
    }

    /** Reads the stream with Jackson's duplicate check (a stream cannot be read a second time). */
    public JNode read(InputStream in) throws JsonFormatException {
        try {
            return read(in, strict, null);
        } catch (DuplicateKeyException e) {
            throw new IllegalStateException("the strict reader does not look for duplicates itself", e);
        }
    }

    private JNode read(InputStream in, JsonFactory factory, StreamedArray streamed) throws JsonFormatException, DuplicateKeyException {
        try (JsonParser p = factory.createParser(in)) {
            return readDocument(p, factory == fast, streamed, true);
        } catch (JsonFormatException e) {
            throw e;
        } catch (IOException e) {
            throw new JsonFormatException("", Pos.UNKNOWN, "cannot read JSON: " + e.getMessage());
        }
    }

    /** The document's tree, or null when {@code build} is false: its tokens are then only read through, for their first error. */
    private JNode readDocument(JsonParser p, boolean checkDuplicates, StreamedArray streamed, boolean build) throws JsonFormatException, DuplicateKeyException {
        try {
            JsonToken t = p.nextToken();
            if (t == null) {
                throw new JsonFormatException("", pos(p.currentLocation()), "the file is empty; expected a JSON object");
            }
            JNode root = null;
            if (build) {
                root = new TreeBuilder(p, checkDuplicates, streamed).readValue();
            } else {
                p.skipChildren();
            }
            JsonToken trailing = p.nextToken();
            if (trailing != null) {
                throw new JsonFormatException("", pos(p.currentTokenLocation()),
                        "unexpected content after the end of the JSON value");
            }
            return root;
        } catch (StreamConstraintsException e) {
            throw new JsonFormatException("", pos(p.currentLocation()), "input exceeds a size limit: " + firstLine(e.getOriginalMessage()));
        } catch (JsonParseException e) {
            throw new JsonFormatException("", pos(e.getLocation()), "malformed JSON: " + firstLine(e.getOriginalMessage()));
        } catch (JsonProcessingException e) {
            throw new JsonFormatException("", pos(e.getLocation()), "malformed JSON: " + firstLine(e.getOriginalMessage()));
        } catch (IOException e) {
            throw new JsonFormatException("", pos(p.currentLocation()), "cannot read JSON: " + firstLine(e.getMessage()));
        }
    }

    static Pos pos(JsonLocation loc) {
        if (loc == null || loc.getLineNr() < 1) {
            return Pos.UNKNOWN;
        }
        return new Pos(loc.getLineNr(), loc.getColumnNr());
    }

    /**
     * Jackson's notes "(start marker at [Source: (String)"...text..."; line: 9, column: 14])" and
     * "(for Object starting at [Source: ...])" quote the source, newlines and all; keep only the
     * position.
     */
    private static final Pattern SOURCE_LOCATION =
            Pattern.compile("\\[Source: .*?; line: (\\d+), column: (\\d+)\\]", Pattern.DOTALL);

    private static String firstLine(String s) {
        if (s == null) {
            return "unknown error";
        }
        s = SOURCE_LOCATION.matcher(s).replaceAll("$1:$2");
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
