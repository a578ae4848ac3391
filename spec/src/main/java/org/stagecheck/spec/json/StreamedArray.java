package org.stagecheck.spec.json;

/**
 * Takes the items of one array field of a document's root object while {@link TreeBuilder} reads
 * them, so that the tree never holds them all at once: a program's stages are decoded one by one
 * and dropped (docs/format.md, "Reading speed"). The tree keeps an empty array at that array's
 * position in its place.
 */
interface StreamedArray {
    /** The root object's field whose array is streamed ({@code "stages"}). */
    String field();

    /**
     * Item {@code index} has been read: {@code item} is its whole tree, which the builder does not
     * keep. It lies in the bytes {@code [startByte, endByte)} of the input; {@code endByte} is -1
     * for a scalar item.
     */
    void item(int index, JNode item, long startByte, long endByte);

    /** The array has ended; {@code placeholder} is the empty array the tree holds in its place. */
    void ended(JNode.JArray placeholder);
}
