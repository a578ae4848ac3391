package org.stagecheck.spec.json;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;

/**
 * Where each item of a {@link StreamedArray streamed} array lies in its file: the item's
 * line:column and the bytes it spans, about 20 bytes an item instead of its positioned tree
 * (docs/format.md, "Reading speed"). A diagnostic about a value inside item {@code i} is placed
 * by reading those bytes again and finding the value's line:column in them, which is the
 * position the whole tree would have given.
 *
 * <p>The file's size and modification time are noted before it is read; should either differ when
 * a value is placed (the file was rewritten meanwhile), the value is placed at its item's start,
 * which was read from the file as it was.
 */
final class ItemSpans {
    private final Path file;
    private final String field;
    private final long sizeBefore;
    private final FileTime modifiedBefore;

    private long[] where = new long[256];
    private long[] start = new long[256];
    /** Bytes the item spans; -1 for a scalar item (nothing lies inside it). */
    private int[] length = new int[256];
    private int count;

    /**
     * Notes {@code file}'s size and modification time: call before the file is read.
     *
     * @param field the root object's field whose array items these are
     */
    ItemSpans(Path file, String field) {
        this.file = file;
        this.field = field;
        long size;
        FileTime modified;
        try {
            size = Files.size(file);
            modified = Files.getLastModifiedTime(file);
        } catch (IOException e) {
            // the reader reports the file's problem; nothing will be placed
            size = -1;
            modified = null;
        }
        this.sizeBefore = size;
        this.modifiedBefore = modified;
    }

    /** Item {@link #count} starts at packed position {@code where} and spans bytes {@code [startByte, endByte)} (-1: a scalar). */
    void add(long where, long startByte, long endByte) {
        if (count == this.where.length) {
            int grown = count * 2;
            this.where = Arrays.copyOf(this.where, grown);
            this.start = Arrays.copyOf(this.start, grown);
            this.length = Arrays.copyOf(this.length, grown);
        }
        this.where[count] = where;
        this.start[count] = startByte;
        this.length[count] = endByte < 0 ? -1 : (int) (endByte - startByte);
        count++;
    }

    int size() {
        return count;
    }

    /**
     * The position of the value at JSON {@code pointer} when it lies in one of these items
     * ({@code /stages/3} or below), or null when it does not, so that the caller looks in the tree
     * (which holds, in the array's place, an empty array at its position).
     */
    Pos locate(String pointer) {
        String prefix = "/" + field + "/";
        if (!pointer.startsWith(prefix)) {
            return null;
        }
        int slash = pointer.indexOf('/', prefix.length());
        String indexPart = pointer.substring(prefix.length(), slash < 0 ? pointer.length() : slash);
        int index;
        try {
            // as JNode.at reads an array index
            index = Integer.parseInt(indexPart);
        } catch (NumberFormatException e) {
            return null;
        }
        if (index < 0 || index >= count) {
            return null;
        }
        Pos itemStart = Pos.unpack(where[index]);
        String inside = slash < 0 ? "" : pointer.substring(slash);
        if (inside.isEmpty() || length[index] < 0 || !unchanged()) {
            return itemStart;
        }
        JNode item;
        try {
            item = new JsonReader().read(new ByteArrayInputStream(bytes(start[index], length[index])));
        } catch (IOException | JsonFormatException e) {
            return itemStart;
        }
        Pos inner = JNode.at(item, inside).pos();
        if (!inner.known() || !itemStart.known()) {
            return itemStart;
        }
        // the item's first line continues the line it starts on; its later lines are whole lines
        return inner.line() == 1
                ? new Pos(itemStart.line(), itemStart.column() + inner.column() - 1)
                : new Pos(itemStart.line() + inner.line() - 1, inner.column());
    }

    private boolean unchanged() {
        try {
            return modifiedBefore != null && Files.size(file) == sizeBefore && Files.getLastModifiedTime(file).equals(modifiedBefore);
        } catch (IOException e) {
            return false;
        }
    }

    private byte[] bytes(long from, int n) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(n);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            while (buf.hasRemaining()) {
                if (ch.read(buf, from + buf.position()) < 0) {
                    throw new IOException("the file ended early");
                }
            }
        }
        return buf.array();
    }
}
