package org.stagecheck.spec.json;

/**
 * The JSON pointer of the value being decoded, as a chain of steps from the root that is spelled
 * out only when an error names it. Decoding a million-stage program visits tens of millions of
 * values and almost never reports one, so building every pointer string up front was most of
 * the decoder's garbage (docs/format.md, "Reading speed").
 *
 * <p>{@link #toString()} is the pointer exactly as the messages have always printed it: each
 * step is {@code "/"} followed by the key or the index, keys written as they are (no {@code ~0}
 * or {@code ~1} escaping), the root being the empty string.
 */
final class Pointer {
    static final Pointer ROOT = new Pointer(null, null, 0);

    private final Pointer parent;
    /** The object key of this step, or null when the step is the array index {@link #index}. */
    private final String key;
    private final int index;

    private Pointer(Pointer parent, String key, int index) {
        this.parent = parent;
        this.key = key;
        this.index = index;
    }

    /** The pointer of field {@code key} of the object here. */
    Pointer key(String key) {
        return new Pointer(this, key, 0);
    }

    /** The pointer of item {@code index} of the array here. */
    Pointer index(int index) {
        return new Pointer(this, null, index);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        append(sb);
        return sb.toString();
    }

    private void append(StringBuilder sb) {
        if (parent == null) {
            return;
        }
        parent.append(sb);
        sb.append('/');
        if (key != null) {
            sb.append(key);
        } else {
            sb.append(index);
        }
    }
}
