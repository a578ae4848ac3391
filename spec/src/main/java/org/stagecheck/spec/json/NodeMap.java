package org.stagecheck.spec.json;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;

/**
 * The fields of a {@link JNode.JObject}: an immutable map in the order the fields were written,
 * kept as two parallel arrays instead of a hash map of entries. The key array is shared by every
 * object that has the same keys in the same order (all stages of a program, say), so an object
 * costs its value array and this small header (docs/format.md, "Reading speed").
 *
 * <p>Lookup compares keys one by one for small objects (the format's objects have at most 8
 * fields); objects above {@link #LINEAR_MAX} fields (a certificate's remap, an inputs manifest)
 * get an open-addressing index so that reading n fields stays O(n).
 */
final class NodeMap extends AbstractMap<String, JNode> {
    static final int LINEAR_MAX = 8;

    private final String[] keys;
    private final JNode[] values;
    /** Slot -> field index + 1 (0 = empty); null for small objects. */
    private final int[] index;

    /** Takes ownership of both arrays: the caller must not change them afterwards. */
    NodeMap(String[] keys, JNode[] values) {
        if (keys.length != values.length) {
            throw new IllegalArgumentException(keys.length + " keys for " + values.length + " values");
        }
        this.keys = keys;
        this.values = values;
        this.index = keys.length > LINEAR_MAX ? buildIndex(keys) : null;
    }

    /** An immutable copy of {@code fields}, in its iteration order; nulls are refused. */
    static NodeMap copyOf(Map<String, ? extends JNode> fields) {
        String[] k = new String[fields.size()];
        JNode[] v = new JNode[fields.size()];
        int i = 0;
        for (var e : fields.entrySet()) {
            k[i] = Objects.requireNonNull(e.getKey(), "a JSON object key");
            v[i] = Objects.requireNonNull(e.getValue(), "a JSON object value");
            i++;
        }
        return new NodeMap(k, v);
    }

    private static int[] buildIndex(String[] keys) {
        int[] table = new int[Integer.highestOneBit(keys.length * 2 - 1) << 1];
        int mask = table.length - 1;
        for (int i = 0; i < keys.length; i++) {
            int slot = spread(keys[i].hashCode()) & mask;
            while (table[slot] != 0) {
                slot = (slot + 1) & mask;
            }
            table[slot] = i + 1;
        }
        return table;
    }

    private static int spread(int h) {
        return h ^ (h >>> 16);
    }

    /** The index of {@code key} in written order, or -1. */
    int indexOf(Object key) {
        if (!(key instanceof String k)) {
            return -1;
        }
        if (index == null) {
            for (int i = 0; i < keys.length; i++) {
                // Keys are the parser's canonical instances, so identity usually decides at once.
                if (keys[i] == k || keys[i].equals(k)) {
                    return i;
                }
            }
            return -1;
        }
        int mask = index.length - 1;
        for (int slot = spread(k.hashCode()) & mask; index[slot] != 0; slot = (slot + 1) & mask) {
            int i = index[slot] - 1;
            if (keys[i].equals(k)) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public JNode get(Object key) {
        int i = indexOf(key);
        return i < 0 ? null : values[i];
    }

    @Override
    public boolean containsKey(Object key) {
        return indexOf(key) >= 0;
    }

    @Override
    public int size() {
        return keys.length;
    }

    /** The i-th key in written order. */
    String keyAt(int i) {
        return keys[i];
    }

    /** The i-th value in written order. */
    JNode valueAt(int i) {
        return values[i];
    }

    @Override
    public Set<Entry<String, JNode>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Entry<String, JNode>> iterator() {
                return new Iterator<>() {
                    private int next;

                    @Override
                    public boolean hasNext() {
                        return next < keys.length;
                    }

                    @Override
                    public Entry<String, JNode> next() {
                        if (next >= keys.length) {
                            throw new NoSuchElementException();
                        }
                        int i = next++;
                        return new SimpleImmutableEntry<>(keys[i], values[i]);
                    }
                };
            }

            @Override
            public int size() {
                return keys.length;
            }
        };
    }
}
