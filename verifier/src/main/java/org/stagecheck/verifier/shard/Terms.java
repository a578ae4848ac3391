package org.stagecheck.verifier.shard;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The terms of one verification, hash-consed (docs/verifier.md, "Terms"): one object per key,
 * and one per canonical sum, max or min (by its operands as a counted multiset,
 * {@link Summands}). A table per verification, never shared: its ids are the verification's.
 */
final class Terms {
    static final int TEXT_LIMIT = 160;
    /** Terms nested deeper than this below the one whose text is made are rendered {@code ...}. */
    static final int TEXT_DEPTH = 32;
    /** The analysis of the unsplit parent program (run first when one is given). */
    static final int PARENT = 0;
    /** The analysis of the program being verified. */
    static final int CHILD = 1;
    /** The terms made by their key ({@link #of}). */
    private final TermTable byKey = new TermTable();
    /** The plain operations and the canonical sums, maxima and minima, by their operation and operands. */
    private final TermTable formed = new TermTable();
    /** {@code neg(x)} for every term {@code x} whose negation was built, by x's id. */
    private final IdMap<Term> negations = new IdMap<>();
    /** The selects with one branch 0, by condition. */
    private final Selects selects = new Selects();
    /** The transposed terms, by id. */
    private final Transposes transposes = new Transposes(this);
    private final TextDepth textDepth = new TextDepth();
    private int count;
    /** Where the terms made now are made ({@link Term.Made#pack}). */
    private int now = Term.Made.pack(CHILD, -1);

    /** An associative and commutative operation's operands, flattened and sorted by id, each repeated as often as it is counted. */
    record Flat(String op, java.util.List<Term> parts) {}

    /**
     * The operation of a plain term {@code op(args)} (no canonical rewriting), its arguments being
     * the term's {@link Term#sources}: one object per operation name in a table, shared by every
     * term of that operation, so a term of an operation costs no key object (and finds its table,
     * {@code owner}, here rather than in a field of its own). Two terms are the same operation
     * exactly for the same name over the same argument terms.
     */
    record OpKey(String op, Terms owner) {
        /** The hash code of {@code op(args)}. */
        static int hash(String op, Term[] args) {
            int h = op.hashCode();
            for (Term t : args) {
                h = h * 31 + t.id();
            }
            return h;
        }

        /** Whether both argument lists name the same terms in the same order. */
        static boolean sameArgs(Term[] a, Term[] b) {
            if (a.length != b.length) {
                return false;
            }
            for (int i = 0; i < a.length; i++) {
                if (a[i] != b[i]) {
                    return false;
                }
            }
            return true;
        }

        /** The key text of {@code op(args)}: {@code f:op(id,id,...)}. */
        String key(Term[] args) {
            StringBuilder key = new StringBuilder("f:").append(op).append('(');
            for (int i = 0; i < args.length; i++) {
                key.append(i == 0 ? "" : ",").append(args[i].id());
            }
            return key.append(')').toString();
        }
    }

    /** The operations of plain terms met so far, one object per name. */
    private final Map<String, OpKey> operations = new HashMap<>();

    /**
     * The plain operations and canonical sums kept in their anchors' chains (the table's array
     * holds the others), in the order made. Nothing looks terms up here: it is for the garbage
     * collector, which otherwise reaches the terms of a deep nest only through their chains of
     * operands and anchors, one object after another; from this array it copies them in the
     * order they lie in memory, in parallel (docs/verifier.md, "Scale").
     */
    private Term[] made = new Term[1024];
    private int madeCount;

    private void remember(Term t) {
        if (madeCount == made.length) {
            made = Arrays.copyOf(made, grownLength(made.length));
        }
        made[madeCount++] = t;
    }

    /** The most terms {@link #made} holds: the largest array length a JVM allocates. */
    static final int MOST_CHAIN_KEPT = Integer.MAX_VALUE - 8;

    /**
     * The length {@link #made} grows to from {@code length}: double, at most {@link #MOST_CHAIN_KEPT};
     * full at that, it fails with a message rather than copying it to the same length and
     * writing past its end.
     */
    static int grownLength(int length) {
        if (length >= MOST_CHAIN_KEPT) {
            throw new IllegalStateException("the array of chain-kept terms holds " + length + " terms, its most");
        }
        return (int) Math.min(MOST_CHAIN_KEPT, length * 2L);
    }

    /**
     * The texts of plain operations and canonical sums rendered whole, by id: diagnostics ask for
     * few of them, so they are kept here, not in a field that millions of terms would carry.
     */
    private final IdMap<String> texts = new IdMap<>();

    /** The text kept for {@code t} ({@link #keepText}), or null. */
    String keptText(Term t) {
        return texts.get(t.id());
    }

    void keepText(Term t, String text) {
        if (t.id() >= 0) { // not the marker of a full chain (id -1, no term of the table): the map keeps no negative id
            texts.put(t.id(), text);
        }
    }

    /**
     * The last operation met per slot of its name's hash: a program applies a few operations over
     * and over, and this finds each with one array read and a comparison of the name's identity
     * (the names come from a few constants), where the map's look-up was a few per cent of a
     * nest's checking.
     */
    private final OpKey[] recentOps = new OpKey[16];

    private OpKey opKey(String op) {
        int slot = op.hashCode() & (recentOps.length - 1);
        OpKey k = recentOps[slot];
        if (k != null && k.op() == op) {
            return k;
        }
        k = operations.get(op);
        if (k == null) {
            k = new OpKey(op, this);
            operations.put(op, k);
        }
        recentOps[slot] = k;
        return k;
    }

    /**
     * The hash code of the canonical sum, max or min {@code op} over {@code operands} and the
     * folded constant {@code constant} (null for none): equal for the same operation over the same
     * multiset, which is when two are one term.
     */
    static int flatHash(String op, Summands operands, Term constant) {
        return flatHash(op, operands.hash, constant);
    }

    /** The same, given the operands' {@link Summands#hash}. */
    static int flatHash(String op, long operandsHash, Term constant) {
        return (Long.hashCode(operandsHash) * 31 + op.hashCode()) * 31 + (constant == null ? 0 : constant.id());
    }

    /** How deep the text being made is, and how often it was cut ({@link Term#text()}). */
    static final class TextDepth {
        private int level;
        private long cuts;

        boolean enter() {
            if (level >= TEXT_DEPTH) {
                cuts++;
                return false;
            }
            level++;
            return true;
        }

        void leave() {
            level--;
        }

        long cuts() {
            return cuts;
        }
    }

    TextDepth textDepth() {
        return textDepth;
    }

    /** The value a constant's key names ({@code cf:} a Double, {@code ci:} a Long or null when it is no long). */
    static Number parseConstant(String key) {
        if (key.startsWith("cf:")) {
            return Double.parseDouble(key.substring(3));
        }
        try {
            return Long.parseLong(key.substring(3));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** How many terms this table holds (keyed and canonical ones). */
    int size() {
        return count;
    }

    /** Terms made from now on were first built by analysis {@code phase} at stage {@code stage}. */
    void at(int phase, int stage) {
        now = Term.Made.pack(phase, stage);
    }

    int phase() {
        return Term.Made.phaseOf(now);
    }

    /** The operands of {@code t} when it is a canonical sum, max or min (its folded constant among them), else null. */
    Flat flat(Term t) {
        if (t.flatOp() == null) {
            return null;
        }
        java.util.List<Term> parts = new java.util.ArrayList<>(t.operands().expanded());
        if (t.constant() != null) {
            parts.add(t.constant());
            parts.sort(java.util.Comparator.comparingInt(Term::id));
        }
        return new Flat(t.flatOp(), parts);
    }

    /**
     * The plain term {@code op(args)} (its key {@code f:op(ids)}, its text made from them),
     * defined on {@code bounds} (kept, not copied: no term's bounds are ever changed); a new one
     * inherits the first demotion among its arguments.
     */
    Term op(String op, Term[] args, String label, Term.Bounds bounds) {
        Term anchor = anchor(args);
        boolean chained = anchor != null && anchor.uses() != fullChain;
        int walked = 0;
        Term t = null;
        if (chained) {
            for (Term u = anchor.uses(); u != null; u = Term.nextUse(u), walked++) {
                if (u instanceof Term.Op o && o.opName().equals(op) && o.sameArgs(args)) {
                    t = u;
                    break;
                }
            }
        } else {
            t = formed.findOp(op, args);
        }
        if (t == null) {
            Term.Op made = new Term.Op(count++, label, bounds, now, args, opKey(op));
            keep(made, anchor, chained, walked);
            inherit(made, args);
            t = made;
        } else {
            foundAgain(t, args);
        }
        return t;
    }

    /**
     * {@code t}, met again by the analysis now running without a look-up (a function of one term
     * whose argument is read in place, {@link Align}; a sum's last step, {@link Ops}): what {@link #op} and {@link #flat} do on
     * finding it, so a term the other analysis made inherits this one's first demotion among its
     * sources once, as building it again would.
     */
    Term foundAgain(Term t) {
        return t.madePhase() != phase() ? foundAgain(t, t.sources()) : t;
    }

    /**
     * The same, found from {@code sources} (what building it again would take its demotion from);
     * also what {@link #op}, {@link #flat} and {@link #of} do with a term they find.
     */
    Term foundAgain(Term t, Term[] sources) {
        if (t.madePhase() != phase() && rebuilt.put(t.id(), Boolean.TRUE) == null) {
            inherit(t, sources);
        }
        return t;
    }

    /**
     * Terms kept in their anchor's chain at most; the one that would fill it moves the chain to
     * the table, and every later term over the same anchor goes there, found without a walk:
     * a term that millions of terms share as their newest operand (the {@code x} of a chain
     * {@code a = a + x}) costs one table look-up each, not a walk of this many.
     */
    private static final int ANCHORED_MAX = 16;

    /** The mark of an anchor whose chain moved to the table ({@link #ANCHORED_MAX}); never a term of the table. */
    private final Term fullChain = new Term.Op(-1, "", new Term.Bounds(new long[0], new long[0]), 0, new Term[0], new OpKey("(full chain)", this));

    /**
     * Keeps {@code made}, found in neither its anchor's chain ({@code walked} long, when
     * {@code chained}) nor the table: in the chain while it has room, else in the table.
     */
    private void keep(Term made, Term anchor, boolean chained, int walked) {
        if (!chained) {
            formed.add(made);
        } else if (walked + 1 < ANCHORED_MAX) {
            anchor.use(made);
            remember(made);
        } else {
            for (Term u = anchor.uses(); u != null; u = Term.nextUse(u)) {
                formed.add(u);
            }
            formed.add(made);
            anchor.closeUses(fullChain);
        }
    }

    /** The argument with the largest id (built last: the one fewest terms share), or null for none. */
    private static Term anchor(Term[] args) {
        Term a = null;
        for (Term t : args) {
            if (a == null || t.id() > a.id()) {
                a = t;
            }
        }
        return a;
    }

    /**
     * The canonical {@code op} (sum, max or min) over {@code operands}: the one term of that
     * multiset (its text made from them); a new one inherits the first demotion among
     * {@code sources} (the operands it was built from directly). The bounds and array are kept, not copied.
     * It is anchored at its operand with the largest id (the folded constant among them), which
     * is a function of the multiset, so equal ones meet in one chain.
     */
    Term flat(String op, Summands operands, Term constant, Term.Bounds bounds, Term[] sources) {
        Term anchor = operands.newest();
        if (constant != null && (anchor == null || constant.id() > anchor.id())) {
            anchor = constant;
        }
        boolean chained = anchor != null && anchor.uses() != fullChain;
        int walked = 0;
        Term t = null;
        if (chained) {
            int h = flatHash(op, operands, constant);
            for (Term u = anchor.uses(); u != null; u = Term.nextUse(u), walked++) {
                if (u instanceof Term.Flat f && f.formHash() == h && f.isFlat(op, operands, constant)) {
                    t = u;
                    break;
                }
            }
        } else {
            t = formed.findFlat(op, operands, constant);
        }
        if (t == null) {
            t = new Term.Flat(count++, operands.label(), bounds, now, sources, this, op, operands, constant);
            keep(t, anchor, chained, walked);
            inherit(t, sources);
        } else {
            foundAgain(t, sources);
        }
        return t;
    }

    /** Per term, a bit per axis along which its value does not change (a broadcast); rank above 63 is never marked. */
    private final IdMap<Long> constantAxes = new IdMap<>();

    long constantAxes(Term t) {
        Long m = constantAxes.get(t.id());
        return m == null ? 0 : m;
    }

    void constantAxes(Term t, long mask) {
        if (mask != 0 && t.rank() < 64) {
            constantAxes.putIfAbsent(t.id(), mask);
        }
    }

    /** {@code x} when {@code t} is the plain term {@code neg(x)} ({@link Ops#op} makes one only where no rule folds the negation), else null. */
    Term negationOf(Term t) {
        return t instanceof Term.Op o && o.arity() == 1 && t.opName().equals("neg") ? o.arg(0) : null;
    }

    /** Records that {@code neg} is {@code neg(of)}, so a sum holding {@code of} finds its negation ({@link #negationIfBuilt}). */
    void negation(Term neg, Term of) {
        negations.putIfAbsent(of.id(), neg);
    }

    Selects selects() {
        return selects;
    }

    Transposes transposes() {
        return transposes;
    }

    /** The term {@code neg(x)} when it was built, else null (then no sum holds it). */
    Term negationIfBuilt(Term x) {
        return negations.get(x.id());
    }
    /**
     * For a term built from a demoted partial (directly or not), the latest such demotion, per
     * analysis: a term both programs build may be a demotion in one and not the other.
     */
    private final IdMap<Demotion> parentDemotions = new IdMap<>();
    private final IdMap<Demotion> demotions = new IdMap<>();
    /** The parent's terms that the child's analysis built again (their demotions inherited for the child). */
    private final IdMap<Boolean> rebuilt = new IdMap<>();

    private IdMap<Demotion> demotions() {
        return phase() == PARENT ? parentDemotions : demotions;
    }

    /** The term with this key; a new one inherits the first demotion among {@code sources}. */
    Term of(String key, String text, String label, long[] lo, long[] hi, Term... sources) {
        return of(key, () -> text, label, lo, hi, sources);
    }

    /** The same, with the readable text made only if a diagnostic asks for it. */
    Term of(String key, java.util.function.Supplier<String> text, String label, long[] lo, long[] hi, Term... sources) {
        Term t = byKey.findLeaf(key);
        if (t == null) {
            int id = count++;
            Term.Leaf made = new Term.Leaf(id, key, text, label, lastBounds.shared(lo, hi), now, sources.clone(), this);
            byKey.add(made);
            t = made;
            inherit(t, sources);
        } else {
            foundAgain(t, sources);
        }
        return t;
    }

    /**
     * The bounds of the last leaf made, shared by the next leaf with the same bounds: a program
     * reads rows of one shape stage after stage, and the bounds per leaf were most of a leaf's
     * memory.
     */
    private final LastBounds lastBounds = new LastBounds();

    /** The last bounds handed out: copies, never the caller's arrays, and no term's bounds are ever changed. */
    private static final class LastBounds {
        private Term.Bounds last = new Term.Bounds(new long[0], new long[0]);

        Term.Bounds shared(long[] lo, long[] hi) {
            if (!Arrays.equals(lo, last.lo) || !Arrays.equals(hi, last.hi)) {
                last = new Term.Bounds(lo.clone(), hi.clone());
            }
            return last;
        }
    }

    private void inherit(Term t, Term[] sources) {
        IdMap<Demotion> ds = demotions();
        if (ds.isEmpty()) {
            return;
        }
        Demotion latest = null;
        for (Term s : sources) {
            Demotion d = s == null ? null : ds.get(s.id());
            if (d != null && (latest == null || d.stageIndex() > latest.stageIndex())) {
                latest = d;
            }
        }
        if (latest != null) {
            ds.put(t.id(), latest);
        }
    }

    /** A term defined on {@code [0, dims)}. */
    Term of(String key, String text, String label, long[] dims, Term... sources) {
        return of(key, text, label, new long[dims.length], dims, sources);
    }

    Term of(String key, java.util.function.Supplier<String> text, String label, long[] dims, Term... sources) {
        return of(key, text, label, new long[dims.length], dims, sources);
    }

    /** A term that stands for a partial used as a plain value, remembering where. */
    Term demoted(String key, String text, String label, long[] lo, long[] hi, Demotion why, Term... sources) {
        return demoted(key, () -> text, label, lo, hi, why, sources);
    }

    Term demoted(String key, java.util.function.Supplier<String> text, String label, long[] lo, long[] hi, Demotion why, Term... sources) {
        Term t = of(key, text, label, lo, hi, sources);
        demotions().put(t.id(), why);
        return t;
    }

    /** The demotion {@code t} was built from, or null. */
    Demotion demotion(Term t) {
        return demotions().get(t.id());
    }

    private static final Term[] NO_SOURCES = new Term[0];

    /** A term defined everywhere (constants, parameters, element indices) of rank {@code rank}. */
    Term unbounded(String key, String text, int rank) {
        Term known = byKey.findLeaf(key);
        if (known != null) {
            // what of() finds (whatever its rank), without making bounds for it
            return foundAgain(known, NO_SOURCES);
        }
        long[] lo = new long[rank];
        long[] hi = new long[rank];
        Arrays.fill(lo, Long.MIN_VALUE);
        Arrays.fill(hi, Long.MAX_VALUE);
        return of(key, text, "", lo, hi);
    }

    static long[] unboundedLo(int rank) {
        long[] lo = new long[rank];
        Arrays.fill(lo, Long.MIN_VALUE);
        return lo;
    }

    static long[] unboundedHi(int rank) {
        long[] hi = new long[rank];
        Arrays.fill(hi, Long.MAX_VALUE);
        return hi;
    }

    static long shiftBound(long b, long d) {
        if (b == Long.MIN_VALUE || b == Long.MAX_VALUE) {
            return b;
        }
        return b - d;
    }
}
