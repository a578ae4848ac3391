package org.stagecheck.spec.json;

/**
 * Takes the items of one array field of a document's root object while {@link TreeBuilder} reads
 * them, so that the tree never holds them all at once: a program's stages are decoded one by one
 * and dropped (docs/format.md, "Reading speed"). The reading thread records each item's tokens on
 * the stream's current {@link #tape()}; the stream builds the item's tree from there, on the
 * thread it chooses. The tree keeps an empty array at that array's position in their place.
 */
interface StreamedArray {
    /** The root object's field whose array is streamed ({@code "stages"}). */
    String field();

    /** The tape the next item's tokens are to be recorded on. */
    TokenTape tape();

    /**
     * Item {@code index} has been recorded on {@link #tape()}: it starts at packed position
     * {@code where} and lies in the bytes {@code [startByte, endByte)} of the input;
     * {@code endByte} is -1 for a scalar item.
     *
     * @throws DuplicateKeyException when the stream built the item's tree at once and met a key
     *     twice in one of its objects
     */
    void item(int index, long where, long startByte, long endByte) throws DuplicateKeyException;

    /**
     * The array has ended; {@code placeholder} is the empty array the tree holds in its place.
     *
     * @throws DuplicateKeyException when an item's tree, built by then, met a key twice in one of
     *     its objects
     */
    void ended(JNode.JArray placeholder) throws DuplicateKeyException;
}
