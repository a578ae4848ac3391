package org.stagecheck.verifier.shard;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The operands of a canonical sum, max or min (docs/verifier.md, "Canonical sums"): a counted
 * multiset of terms ({@code x + x + x} is {@code {x:3}}), persistent, so a term built by adding
 * one operand to a sum shares the sum's operands instead of copying them.
 *
 * <p>A node is a <em>snapshot</em> (its distinct operands and their counts, sorted by term id)
 * or a <em>delta</em> (one operand added to the node below it). Adding an operand is O(1); when
 * the deltas above the last snapshot outnumber its operands (plus a slack), they are folded into
 * a new snapshot, so a node holds O(distinct operands) and adding is O(1) amortised, whatever
 * the chain that built it: adding {@code x} to a sum that ends with {@code x} raises the count
 * in place, and a 10^6-stage chain {@code acc = acc + x} ends with one node of {@code {x:10^6}}.
 *
 * <p>Equality is the multiset's: the same operands with the same counts. {@link #hash} (a
 * commutative sum of a mix of the operands' ids, weighted by count) is equal for equal multisets
 * and decides almost every comparison; equal hashes are confirmed operand by operand, so a
 * collision never makes two different sums one term.
 */
final class Summands {
    /** Deltas allowed above a snapshot beyond its size before they are folded into a new one. */
    private static final int SLACK = 8;

    /** The node below a delta; null for a snapshot. */
    private final Summands below;
    /** A snapshot's operands sorted by id, and their counts (null in a delta). */
    private final Term[] terms;
    private final long[] counts;
    /** A delta's one operand and its count (null and 0 in a snapshot): fields, not arrays, as a chain makes a delta per step. */
    private final Term one;
    private final long oneCount;
    /** Distinct operands of the snapshot this node's chain starts from. */
    private final int snapshotSize;
    /** Delta nodes from here down to that snapshot. */
    private final int deltas;
    /** Sum over operands of count * mix(id): equal for equal multisets. */
    final long hash;
    /** Sum of the counts. */
    final long total;
    /** The operand with the smallest id that has a label (for messages), or null. */
    private final Term labelled;
    /**
     * The operand with the largest id, or null: none when the multiset is empty ({@link #total}
     * 0), else not known yet (after the newest operand was taken away), found by
     * {@link #newest()} and kept.
     */
    private Term newest;
    /**
     * The count of each operand, built by the first {@link #count} and handed on to the node that
     * {@link #plus} builds from this one (this multiset plus one operand), so a chain of additions
     * that asks counts keeps one table and pays O(1) per step. Null when not built or handed on.
     */
    private Map<Term, Long> index;

    /** A snapshot: {@code terms} sorted by id with their {@code counts}. */
    private Summands(Term[] terms, long[] counts, int snapshotSize, long hash, long total, Term labelled) {
        this(null, terms, counts, null, 0, snapshotSize, 0, hash, total, labelled, terms.length == 0 ? null : terms[terms.length - 1]);
    }

    /** A delta: {@code count} of {@code one} above {@code below}; its newest operand {@code newest} (null: not known). */
    private Summands(Summands below, Term one, long count, int snapshotSize, int deltas, long hash, long total, Term labelled, Term newest) {
        this(below, null, null, one, count, snapshotSize, deltas, hash, total, labelled, newest);
    }

    private Summands(Summands below, Term[] terms, long[] counts, Term one, long oneCount, int snapshotSize, int deltas, long hash, long total,
                     Term labelled, Term newest) {
        this.below = below;
        this.terms = terms;
        this.counts = counts;
        this.one = one;
        this.oneCount = oneCount;
        this.snapshotSize = snapshotSize;
        this.deltas = deltas;
        this.hash = hash;
        this.total = total;
        this.labelled = labelled;
        this.newest = newest;
    }

    /** The empty multiset (immutable, so one serves every sum). */
    private static final Summands EMPTY = new Summands(new Term[0], new long[0], 0, 0, 0, null);

    static Summands empty() {
        return EMPTY;
    }

    /**
     * This multiset with {@code count} more of {@code t}.
     *
     * @throws ArithmeticException when a count or the total would overflow a long
     */
    Summands plus(Term t, long count) {
        long total2 = Math.addExact(total, count);
        long hash2 = hash + count * mix(t.id());
        Term labelled2 = !t.label().isEmpty() && (labelled == null || t.id() < labelled.id()) ? t : labelled;
        Term newest2 = newestAfter(t, count);
        if (below != null && one == t) {
            // the same operand as the last one added: raise its count instead of growing the chain
            long c = Math.addExact(oneCount, count);
            return handedOn(new Summands(below, t, c, snapshotSize, deltas, hash2, total2, labelled2, newest2), t, count);
        }
        Summands s = new Summands(this, t, count, snapshotSize, deltas + 1, hash2, total2, labelled2, newest2);
        return handedOn(s.deltas > s.snapshotSize + SLACK ? s.compact() : s, t, count);
    }

    /** {@code next} (this multiset plus {@code count} of {@code t}), given this node's count table updated, if it has one. */
    private Summands handedOn(Summands next, Term t, long count) {
        if (index != null) {
            Map<Term, Long> m = index;
            index = null;
            long c = m.getOrDefault(t, 0L) + count;
            if (c == 0) {
                m.remove(t);
            } else {
                m.put(t, c);
            }
            next.index = m;
        }
        return next;
    }

    /**
     * How many times {@code t} is an operand. The first call on a node builds its count table
     * (O(distinct operands)); later calls, and calls on the nodes added on top of it, are O(1).
     * A negative {@code count} given to {@link #plus} removes that many (callers remove only
     * operands {@code count} shows are there).
     */
    long count(Term t) {
        if (total == 0) {
            // the empty multiset is one object shared by every verification: it keeps no table
            return 0;
        }
        if (index == null) {
            long near = countNear(t);
            if (near >= 0) {
                return near;
            }
            Summands s = compact();
            Map<Term, Long> m = new IdentityHashMap<>();
            for (int i = 0; i < s.terms.length; i++) {
                m.put(s.terms[i], s.counts[i]);
            }
            index = m;
        }
        return index.getOrDefault(t, 0L);
    }

    /** Nodes {@link #countNear} and {@link #sameNear} look at at most. */
    private static final int NEAR_WALK = 32;

    /**
     * The count of {@code t} read from the few nodes above the first whose known newest operand
     * is older than t (t is in none of the multisets below it), or by a binary search of the
     * snapshot reached; -1 when neither is within {@link #NEAR_WALK} nodes. The operand a sum's
     * cancellation asks about is mostly the newest: its count is then read here, without the
     * count table (building that table on every branch of a large sum, stage after stage, was
     * quadratic).
     */
    private long countNear(Term t) {
        long c = 0;
        Summands n = this;
        for (int walked = 0; walked < NEAR_WALK; walked++) {
            if (n.below == null) {
                int lo = 0;
                int hi = n.terms.length - 1;
                while (lo <= hi) {
                    int mid = (lo + hi) >>> 1;
                    int id = n.terms[mid].id();
                    if (id == t.id()) {
                        return c + n.counts[mid];
                    } else if (id < t.id()) {
                        lo = mid + 1;
                    } else {
                        hi = mid - 1;
                    }
                }
                return c;
            }
            if (n.total == 0 || n.newest != null && n.newest.id() < t.id()) {
                return c;
            }
            if (n.one == t) {
                c += n.oneCount;
            }
            n = n.below;
        }
        return -1;
    }

    /** This multiset plus every operand of {@code other} (with its count times {@code times}). */
    Summands plusAll(Summands other, long times) {
        Summands s = this;
        Summands o = other.compact();
        for (int i = 0; i < o.terms.length; i++) {
            s = s.plus(o.terms[i], Math.multiplyExact(o.counts[i], times));
        }
        return s;
    }

    /**
     * The same multiset as one snapshot: its distinct operands sorted by id, with their counts.
     * The deltas are sorted by id (a primitive sort of id and position packed in a long) and
     * merged with the snapshot below them, which is sorted already: O(d log d + n) for d deltas
     * over n operands, with no map and no object per operand.
     */
    Summands compact() {
        if (below == null) {
            return this;
        }
        int d = 0;
        Summands n = this;
        for (; n.below != null; n = n.below) {
            d++;
        }
        Summands snapshot = n;
        Term[] dt = new Term[d];
        long[] dc = new long[d];
        long[] order = new long[d];
        int i = 0;
        for (n = this; n.below != null; n = n.below, i++) {
            dt[i] = n.one;
            dc[i] = n.oneCount;
            order[i] = (long) n.one.id() << 32 | i;
        }
        Arrays.sort(order);
        Term[] ts = new Term[snapshot.terms.length + d];
        long[] cs = new long[ts.length];
        int out = 0;
        int si = 0;
        int di = 0;
        while (si < snapshot.terms.length || di < d) {
            int sid = si < snapshot.terms.length ? snapshot.terms[si].id() : Integer.MAX_VALUE;
            int did = di < d ? (int) (order[di] >>> 32) : Integer.MAX_VALUE;
            boolean inSnapshot = si < snapshot.terms.length && (di == d || sid <= did);
            Term t = inSnapshot ? snapshot.terms[si] : dt[(int) order[di]];
            long c = 0;
            // every delta of the same operand (ids are unique to a term), newest first, then its
            // count in the snapshot: each partial sum is then its count now minus a count it had
            // before, which fits a long whenever every count did (counts never go below 0),
            // so no sum overflows here that did not overflow as it was added
            while (di < d && (int) (order[di] >>> 32) == t.id()) {
                c = Math.addExact(c, dc[(int) order[di++]]);
            }
            if (inSnapshot) {
                c = Math.addExact(c, snapshot.counts[si++]);
            }
            if (c != 0) { // an operand added and removed again is left out
                ts[out] = t;
                cs[out++] = c;
            }
        }
        return new Summands(Arrays.copyOf(ts, out), Arrays.copyOf(cs, out), out, hash, total, labelled);
    }

    /**
     * The operand with the largest id once {@code count} of {@code t} is added, when known
     * without a look at the operands (null otherwise): adding keeps the larger of the two; taking
     * away an operand other than the newest leaves the newest, whose count is still above 0;
     * taking away the newest may leave none of it: then the next is found among the few nodes
     * below ({@link #newestWithout}), else later by {@link #newest()}.
     */
    private Term newestAfter(Term t, long count) {
        if (count > 0) {
            if (total == 0) {
                return t;
            }
            return newest == null ? null : t.id() > newest.id() ? t : newest;
        }
        if (t != newest) {
            return newest;
        }
        return count(t) + count > 0 ? t : newestWithout(t);
    }

    /** Nodes {@link #newestWithout} looks at at most before it leaves the newest operand to {@link #newest()}. */
    private static final int NEWEST_WALK = 32;

    /**
     * The operand with the largest id once every {@code t} is taken away, each count read here
     * ({@link #count}: near the top, else from the count table, built once and handed on): the largest of the operands the deltas walked down add, with a count
     * above 0 now, and of the first known newest operand below them that still has one (every
     * other operand is in that node's multiset, so no larger), or of a snapshot's operands read
     * from its largest; null when that is more than {@link #NEWEST_WALK} nodes or operands away.
     * Without it, a chain that takes away the operand it just added (a sum less its newest
     * summand, stage after stage) compacted its whole multiset at every stage to find its anchor.
     */
    private Term newestWithout(Term t) {
        Term best = null;
        Summands n = this;
        for (int walked = 0; walked < NEWEST_WALK; walked++) {
            if (n.below == null) {
                for (int i = n.terms.length - 1; i >= 0 && walked < NEWEST_WALK; i--, walked++) {
                    Term u = n.terms[i];
                    if (best != null && u.id() < best.id()) {
                        return best;
                    }
                    if (u != t && count(u) > 0) {
                        return best == null || u.id() > best.id() ? u : best;
                    }
                }
                return walked < NEWEST_WALK ? best : null;
            }
            Term known = n.newest;
            if (known != null && known != t && count(known) > 0) {
                return best == null || known.id() > best.id() ? known : best;
            }
            Term u = n.one;
            if (u != t && (best == null || u.id() > best.id()) && count(u) > 0) {
                best = u;
            }
            n = n.below;
        }
        return null;
    }

    /** The operand with the largest id, or null when the multiset is empty (O(1) but after the newest was taken away). */
    Term newest() {
        if (newest == null && total != 0) {
            Summands s = compact();
            newest = s.terms[s.terms.length - 1];
        }
        return newest;
    }

    /** Whether this node holds the count table {@link #count} builds (for tests of what a count costs). */
    boolean hasCountTable() {
        return index != null;
    }

    /** Whether {@link #newest()} is known without a look at the operands (a compaction). */
    boolean newestKnown() {
        return newest != null || total == 0;
    }

    /** The label of the operand with the smallest id that has one (for messages), or the empty text. */
    String label() {
        return labelled == null ? "" : labelled.label();
    }

    /** The distinct operands, sorted by id. */
    List<Term> distinct() {
        return List.of(compact().terms);
    }

    /** The count of each of {@link #distinct()}, in its order. */
    long[] counts() {
        return compact().counts.clone();
    }

    /** The operands sorted by id, each repeated as often as it is counted (for the few callers that list them). */
    List<Term> expanded() {
        Summands s = compact();
        List<Term> out = new ArrayList<>();
        for (int i = 0; i < s.terms.length; i++) {
            for (long k = 0; k < s.counts[i]; k++) {
                out.add(s.terms[i]);
            }
        }
        return out;
    }

    /** The only operand when the multiset holds exactly one operand once, else null. */
    Term single() {
        return total == 1 ? compact().terms[0] : null;
    }

    /** Nodes held by this multiset's chain: O(distinct operands), whatever built it. */
    int nodes() {
        return deltas + 1;
    }

    /** Whether {@code s} is this node or one below it (for tests of what a sum is built on). */
    boolean builtOn(Summands s) {
        for (Summands n = this; n != null; n = n.below) {
            if (n == s) {
                return true;
            }
        }
        return false;
    }

    /** At least its number of distinct operands: the snapshot's and one per delta above it (O(1)). */
    long distinctBound() {
        return (long) snapshotSize + deltas;
    }

    /** Whether both are the same multiset of operands. */
    boolean sameAs(Summands o) {
        if (this == o) {
            return true;
        }
        if (hash != o.hash || total != o.total) {
            return false;
        }
        Boolean near = sameNear(o);
        if (near != null) {
            return near;
        }
        Summands a = compact();
        Summands b = o.compact();
        if (a.terms.length != b.terms.length) {
            return false;
        }
        for (int i = 0; i < a.terms.length; i++) {
            if (a.terms[i] != b.terms[i] || a.counts[i] != b.counts[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether both are the same multiset, read from the nodes above the nearest node their chains
     * share (a sum and that sum plus an operand less it again share the node below both): the
     * same when what those nodes add nets out, operand by operand. Null when no node is shared
     * within {@link #NEAR_WALK} nodes of either, or a net count overflows; then the compacted
     * multisets are compared (compacting both, stage after stage, was quadratic in a long sum).
     */
    Boolean sameNear(Summands o) {
        Summands[] mine = new Summands[NEAR_WALK];
        int k = 0;
        for (Summands n = this; n != null && k < NEAR_WALK; n = n.below) {
            mine[k++] = n;
        }
        int j = 0;
        for (Summands m = o; m != null && j < NEAR_WALK; m = m.below, j++) {
            for (int i = 0; i < k; i++) {
                if (mine[i] == m) {
                    return netsOut(this, i, o, j);
                }
            }
        }
        return null;
    }

    /** Whether the {@code above} delta nodes from {@code a} down add what the {@code oAbove} ones from {@code o} down add; null on overflow. */
    private static Boolean netsOut(Summands a, int above, Summands o, int oAbove) {
        Map<Term, Long> net = new IdentityHashMap<>();
        try {
            Summands n = a;
            for (int s = 0; s < above; s++, n = n.below) {
                net.merge(n.one, n.oneCount, Math::addExact);
            }
            n = o;
            for (int s = 0; s < oAbove; s++, n = n.below) {
                net.merge(n.one, Math.negateExact(n.oneCount), Math::addExact);
            }
        } catch (ArithmeticException overflow) {
            return null;
        }
        for (long c : net.values()) {
            if (c != 0) {
                return false;
            }
        }
        return true;
    }

    /** A well-spread 64-bit value of a term id (the splitmix64 finaliser). */
    static long mix(int id) {
        long z = id * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
