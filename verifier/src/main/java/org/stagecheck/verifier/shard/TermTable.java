package org.stagecheck.verifier.shard;

/**
 * The hash-consing table of the terms that have a {@link Terms.Form} (plain operations and
 * canonical sums): an open-addressing set of the terms themselves, found by their operation and
 * operands without making a key object per look-up and without an entry object per term (at 10^6
 * stages, a nest keeps several million terms, docs/verifier.md "Scale"). Each slot keeps its
 * term's hash beside it, so a probe reads a term only when the hashes agree and growing the
 * table computes no hash again.
 */
final class TermTable {
    private static final int INITIAL_BITS = 10;
    private Term[] slots = new Term[1 << INITIAL_BITS];
    private int[] hashes = new int[1 << INITIAL_BITS];
    /** {@code 32 - log2(slots.length)}: a slot is the top bits of the hash times the golden ratio. */
    private int shift = 32 - INITIAL_BITS;
    private int size;

    /** The plain term {@code op(args)}, or null. */
    Term findOp(String op, Term[] args) {
        int h = Terms.OpKey.hash(op, args);
        int mask = slots.length - 1;
        for (int i = slot(h, shift); ; i = (i + 1) & mask) {
            Term t = slots[i];
            if (t == null) {
                return null;
            }
            if (hashes[i] == h && t.form() instanceof Terms.OpKey k && k.op().equals(op) && Terms.OpKey.sameArgs(t.sources(), args)) {
                return t;
            }
        }
    }

    /** The canonical sum, max or min of {@code key}, or null. */
    Term findFlat(Terms.FlatKey key) {
        int h = key.hashCode();
        int mask = slots.length - 1;
        for (int i = slot(h, shift); ; i = (i + 1) & mask) {
            Term t = slots[i];
            if (t == null) {
                return null;
            }
            if (hashes[i] == h && t.form() instanceof Terms.FlatKey k && k.equals(key)) {
                return t;
            }
        }
    }

    /** Adds {@code t}, which no term of the table equals. */
    void add(Term t) {
        if (2 * (size + 1) > slots.length) {
            grow();
        }
        place(slots, hashes, shift, t, t.formHash());
        size++;
    }

    private void grow() {
        Term[] biggerSlots = new Term[slots.length * 2];
        int[] biggerHashes = new int[slots.length * 2];
        shift--;
        for (int i = 0; i < slots.length; i++) {
            if (slots[i] != null) {
                place(biggerSlots, biggerHashes, shift, slots[i], hashes[i]);
            }
        }
        slots = biggerSlots;
        hashes = biggerHashes;
    }

    private static void place(Term[] table, int[] hashes, int shift, Term t, int hash) {
        int mask = table.length - 1;
        int i = slot(hash, shift);
        while (table[i] != null) {
            i = (i + 1) & mask;
        }
        table[i] = t;
        hashes[i] = hash;
    }

    private static int slot(int hash, int shift) {
        return (hash * 0x9E3779B9) >>> shift;
    }
}
