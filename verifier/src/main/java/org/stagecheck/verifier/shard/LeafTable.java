package org.stagecheck.verifier.shard;

/**
 * The terms made by their key (constants, parameters, leaf reads, aligned views), found by that
 * key: an open-addressing set of the terms, each slot the key's hash beside the term, so that a
 * look-up that finds nothing (most of them: a program that reads a million rows makes a million
 * keys) reads one int array and no entry object, and growing computes no hash again. It replaced
 * a {@code HashMap<String, Term>}, whose look-up and insertion of every new key were a fifth of
 * the checker's time on a wide fan-in (docs/verifier.md, "Scale").
 *
 * <p>Kept at most three quarters full; a term's key is read only when the hashes agree.
 */
final class LeafTable {
    private static final int INITIAL_SLOTS = 1 << 10;
    private int[] hashes = new int[INITIAL_SLOTS];
    private Term.Leaf[] leaves = new Term.Leaf[INITIAL_SLOTS];
    private int size;

    /** The term whose key is {@code key}, or null. */
    Term.Leaf get(String key) {
        int h = key.hashCode();
        int mask = leaves.length - 1;
        for (int i = slot(h, mask); ; i = (i + 1) & mask) {
            Term.Leaf t = leaves[i];
            if (t == null) {
                return null;
            }
            if (hashes[i] == h && t.leafKey().equals(key)) {
                return t;
            }
        }
    }

    /** Adds {@code t}, whose key no term of the table has. */
    void add(Term.Leaf t) {
        if (size >= (1 << 29)) {
            throw new IllegalStateException("the leaf table holds " + size + " terms, its most");
        }
        if (4L * (size + 1) > 3L * leaves.length) {
            grow();
        }
        place(hashes, leaves, t.leafKey().hashCode(), t);
        size++;
    }

    private void grow() {
        int[] biggerHashes = new int[hashes.length * 2];
        Term.Leaf[] biggerLeaves = new Term.Leaf[leaves.length * 2];
        for (int i = 0; i < leaves.length; i++) {
            if (leaves[i] != null) {
                place(biggerHashes, biggerLeaves, hashes[i], leaves[i]);
            }
        }
        hashes = biggerHashes;
        leaves = biggerLeaves;
    }

    private static void place(int[] hashes, Term.Leaf[] leaves, int h, Term.Leaf t) {
        int mask = leaves.length - 1;
        int i = slot(h, mask);
        while (leaves[i] != null) {
            i = (i + 1) & mask;
        }
        hashes[i] = h;
        leaves[i] = t;
    }

    /** A string's hash spread over the table (keys differ mostly in their last characters). */
    private static int slot(int h, int mask) {
        int mixed = h * 0x9E3779B9;
        return (mixed ^ mixed >>> 16) & mask;
    }
}
