package org.stagecheck.verifier.shard;

/**
 * A map from term ids (non-negative ints) to values, by open addressing over an int array: a
 * look-up boxes no Integer and an entry is no node object. The checker asks these maps about
 * almost every term it builds (is it a negation's operand, a rescaled product, a local arg-max),
 * and almost always gets no answer, so a miss must cost no allocation (docs/verifier.md, "Scale").
 * Null values are not stored.
 */
final class IdMap<V> {
    private static final int FREE = -1;
    private int[] keys = freeKeys(8);
    private Object[] values = new Object[8];
    private int size;

    private static int[] freeKeys(int n) {
        int[] k = new int[n];
        java.util.Arrays.fill(k, FREE);
        return k;
    }

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    /** The value of {@code id}, or null. */
    @SuppressWarnings("unchecked")
    V get(int id) {
        if (size == 0) {
            return null;
        }
        int mask = keys.length - 1;
        for (int i = slot(id, mask); ; i = (i + 1) & mask) {
            int k = keys[i];
            if (k == id) {
                return (V) values[i];
            }
            if (k == FREE) {
                return null;
            }
        }
    }

    boolean containsKey(int id) {
        return get(id) != null;
    }

    /** Sets the value of {@code id} (not null); returns the one it had, or null. */
    @SuppressWarnings("unchecked")
    V put(int id, V value) {
        java.util.Objects.requireNonNull(value, "value");
        if (id < 0) {
            throw new IllegalArgumentException("a term id is never negative: " + id);
        }
        if (2 * (size + 1) > keys.length) {
            grow();
        }
        int mask = keys.length - 1;
        int i = slot(id, mask);
        while (keys[i] != FREE && keys[i] != id) {
            i = (i + 1) & mask;
        }
        V had = (V) values[i];
        if (keys[i] == FREE) {
            keys[i] = id;
            size++;
        }
        values[i] = value;
        return had;
    }

    /** Sets the value of {@code id} when it has none; returns the one it had, or null. */
    V putIfAbsent(int id, V value) {
        V had = get(id);
        return had != null ? had : put(id, value);
    }

    private void grow() {
        int[] oldKeys = keys;
        Object[] oldValues = values;
        keys = freeKeys(oldKeys.length * 2);
        values = new Object[oldKeys.length * 2];
        int mask = keys.length - 1;
        for (int j = 0; j < oldKeys.length; j++) {
            if (oldKeys[j] != FREE) {
                int i = slot(oldKeys[j], mask);
                while (keys[i] != FREE) {
                    i = (i + 1) & mask;
                }
                keys[i] = oldKeys[j];
                values[i] = oldValues[j];
            }
        }
    }

    private static int slot(int id, int mask) {
        return (id * 0x9E3779B9 >>> 16 ^ id * 0x9E3779B9) & mask;
    }
}
