package org.stagecheck.spec.json;

import java.util.AbstractList;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;

/**
 * The items of a {@link JNode.JArray}: an immutable list over an exact-size array that the
 * reader hands over, so that a JSON array is not copied again by its record (docs/format.md,
 * "Reading speed"). Shared empty arrays cost nothing.
 */
final class NodeList extends AbstractList<JNode> implements RandomAccess {
    static final NodeList EMPTY = new NodeList(new JNode[0]);

    private final JNode[] items;

    /** Takes ownership of {@code items}: the caller must not change it afterwards. */
    private NodeList(JNode[] items) {
        this.items = items;
    }

    static NodeList owning(JNode[] items) {
        return items.length == 0 ? EMPTY : new NodeList(items);
    }

    static NodeList copyOf(List<? extends JNode> items) {
        JNode[] a = new JNode[items.size()];
        for (int i = 0; i < a.length; i++) {
            a[i] = Objects.requireNonNull(items.get(i), "a JSON array item");
        }
        return owning(a);
    }

    @Override
    public JNode get(int i) {
        return items[i];
    }

    @Override
    public int size() {
        return items.length;
    }
}
