package org.stagecheck.spec.json;

import java.util.Objects;

/**
 * The positioned JSON tree a value was decoded from, kept to place diagnostics: a JSON pointer
 * into the document becomes the line and column of that value, or of its nearest ancestor when
 * the pointer goes deeper than the document (a field the decoder defaulted).
 *
 * <p>A program read by {@link ProgramFile#read} keeps no tree of its stages (docs/format.md,
 * "Reading speed"): {@code tree} holds an empty array in the place of {@code "stages"}, and
 * {@code streamed} knows where each stage lies in the file, so that a pointer into a stage is
 * placed exactly where the whole tree would have placed it.
 */
public final class SourceMap implements SourceLocator {
    private final String file;
    private final JNode tree;
    /** Where the items of the streamed array lie; null when nothing was streamed. */
    private final ItemSpans streamed;

    /**
     * The source map of a document read whole.
     *
     * @param file the file's name as the caller gave it
     * @param tree the document as {@link JsonReader} read it
     */
    public SourceMap(String file, JNode tree) {
        this(file, tree, null);
    }

    SourceMap(String file, JNode tree, ItemSpans streamed) {
        this.file = Objects.requireNonNull(file, "file");
        this.tree = Objects.requireNonNull(tree, "tree");
        this.streamed = streamed;
    }

    /** The file's name as the caller gave it. */
    public String file() {
        return file;
    }

    /** The document as read (for a program read by {@link ProgramFile#read}, without its stages). */
    public JNode tree() {
        return tree;
    }

    @Override
    public SourcePosition locate(String pointer) {
        if (pointer == null) {
            return new SourcePosition(file, Pos.UNKNOWN);
        }
        Pos inStreamed = streamed == null ? null : streamed.locate(pointer);
        return new SourcePosition(file, inStreamed != null ? inStreamed : JNode.at(tree, pointer).pos());
    }
}
