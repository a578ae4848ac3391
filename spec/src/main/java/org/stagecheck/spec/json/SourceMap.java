package org.stagecheck.spec.json;

import java.util.Objects;

/**
 * The positioned JSON tree a value was decoded from, kept to place diagnostics: a JSON pointer
 * into the document becomes the line and column of that value, or of its nearest ancestor when
 * the pointer goes deeper than the document (a field the decoder defaulted).
 *
 * @param file the file's name as the caller gave it
 * @param tree the document as {@link JsonReader} read it
 */
public record SourceMap(String file, JNode tree) implements SourceLocator {
    public SourceMap {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(tree, "tree");
    }

    @Override
    public SourcePosition locate(String pointer) {
        return new SourcePosition(file, pointer == null ? Pos.UNKNOWN : JNode.at(tree, pointer).pos());
    }
}
