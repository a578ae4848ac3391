package org.stagecheck.verifier.shard;

/**
 * The hash-consing table of the plain operations and canonical sums that their anchors' chains
 * do not hold ({@link Terms#op}): an open-addressing set of the terms, found by their operation
 * and operands without making a key object per look-up and without an entry object per term (a
 * term that millions of terms share as their newest operand sends them all here). A second
 * table of the same kind holds the terms made by their key ({@link Terms#of}), found by it: a
 * program that reads a million rows makes a million keys, and a map's look-up and insertion of
 * each were a fifth of a fan-in's checking.
 *
 * <p>Each slot is one {@code long}: the term's hash in the high half and its place in
 * {@link #terms} plus one in the low half (0: a free slot). A probe reads one array, so a look-up
 * that finds nothing (every new term) costs one cache miss, and a term is read only when the
 * hashes agree; growing computes no hash again. The terms themselves sit in insertion order in
 * a dense array, which is written at its end only: the garbage collector finds the slots array
 * free of references and the terms array dirty only at its tail.
 *
 * <p>The table is kept at most three quarters full: a probe past a taken slot reads the next
 * long, mostly in the same cache line, so a fuller table costs little time and halves the
 * memory of one kept half empty (at 10^6 stages a nest keeps over 5 million terms here, and the
 * slots array is one contiguous allocation that must fit beside everything else when it grows).
 * The terms array grows by half its size.
 */
final class TermTable {
    private static final int INITIAL_BITS = 10;
    private long[] slots = new long[1 << INITIAL_BITS];
    /** {@code 32 - log2(slots.length)}: a slot is the top bits of the hash times the golden ratio. */
    private int shift = 32 - INITIAL_BITS;
    private Term[] terms = new Term[1 << (INITIAL_BITS - 1)];
    private int size;

    /** The plain term {@code op(args)}, or null. */
    Term findOp(String op, Term[] args) {
        int h = Terms.OpKey.hash(op, args);
        int mask = slots.length - 1;
        for (int i = slot(h, shift); ; i = (i + 1) & mask) {
            long e = slots[i];
            if (e == 0) {
                return null;
            }
            if ((int) (e >>> 32) == h) {
                Term t = terms[(int) e - 1];
                if (t instanceof Term.Op o && o.opName().equals(op) && o.sameArgs(args)) {
                    return t;
                }
            }
        }
    }

    /** The canonical sum, max or min {@code op} over {@code operands} and {@code constant}, or null. */
    Term findFlat(String op, Summands operands, Term constant) {
        int h = Terms.flatHash(op, operands, constant);
        int mask = slots.length - 1;
        for (int i = slot(h, shift); ; i = (i + 1) & mask) {
            long e = slots[i];
            if (e == 0) {
                return null;
            }
            if ((int) (e >>> 32) == h) {
                Term t = terms[(int) e - 1];
                if (t instanceof Term.Flat f && f.isFlat(op, operands, constant)) {
                    return t;
                }
            }
        }
    }

    /** The term made by its key {@code key} ({@link Terms#of}), or null. */
    Term.Leaf findLeaf(String key) {
        int h = key.hashCode();
        int mask = slots.length - 1;
        for (int i = slot(h, shift); ; i = (i + 1) & mask) {
            long e = slots[i];
            if (e == 0) {
                return null;
            }
            if ((int) (e >>> 32) == h && terms[(int) e - 1] instanceof Term.Leaf l && l.leafKey().equals(key)) {
                return l;
            }
        }
    }

    /** Adds {@code t}, which no term of the table equals. */
    void add(Term t) {
        if (size == Integer.MAX_VALUE - 1) {
            throw new IllegalStateException("the term table holds " + size + " terms, its most");
        }
        if (4 * ((long) size + 1) > 3L * slots.length) {
            grow();
        }
        if (size == terms.length) {
            terms = java.util.Arrays.copyOf(terms, (int) Math.min(Integer.MAX_VALUE - 8L, terms.length + (terms.length >> 1) + 16L));
        }
        terms[size] = t;
        place(slots, shift, (long) t.formHash() << 32 | (size + 1));
        size++;
    }

    private void grow() {
        long[] bigger = new long[slots.length * 2];
        shift--;
        for (long e : slots) {
            if (e != 0) {
                place(bigger, shift, e);
            }
        }
        slots = bigger;
    }

    private static void place(long[] table, int shift, long entry) {
        int mask = table.length - 1;
        int i = slot((int) (entry >>> 32), shift);
        while (table[i] != 0) {
            i = (i + 1) & mask;
        }
        table[i] = entry;
    }

    private static int slot(int hash, int shift) {
        return (hash * 0x9E3779B9) >>> shift;
    }
}
