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
    private final Map<String, Term> byKey = new HashMap<>();
    /** The canonical sums, maxima and minima, by their operands. */
    private final Map<FlatKey, Term> flats = new HashMap<>();
    /** {@code x} for every term {@code neg(x)}, by the negation's id. */
    private final Map<Integer, Term> negated = new HashMap<>();
    /** {@code neg(x)} for every term {@code x} whose negation was built, by x's id. */
    private final Map<Integer, Term> negations = new HashMap<>();
    /** The selects with one branch 0, by condition. */
    private final Selects selects = new Selects();
    /** The transposed terms, by id. */
    private final Transposes transposes = new Transposes(this);
    private final TextDepth textDepth = new TextDepth();
    private int count;
    private Term.Made now = new Term.Made(CHILD, -1);

    /** An associative and commutative operation's operands, flattened and sorted by id, each repeated as often as it is counted. */
    record Flat(String op, java.util.List<Term> parts) {}

    /**
     * A canonical sum, max or min: its operation, its operands but a folded constant, and that
     * constant (a sum's, or null). Equal exactly for the same operation over the same multiset.
     */
    sealed interface Form permits FlatKey, OpKey {}

    /**
     * A plain operation {@code op(args)} (no canonical rewriting): equal exactly for the same
     * operation over the same terms, so no key text is built to find it.
     */
    record OpKey(String op, Term[] args) implements Form {
        @Override
        public boolean equals(Object o) {
            if (!(o instanceof OpKey k) || k.args.length != args.length || !k.op.equals(op)) {
                return false;
            }
            for (int i = 0; i < args.length; i++) {
                if (k.args[i] != args[i]) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public int hashCode() {
            int h = op.hashCode();
            for (Term t : args) {
                h = h * 31 + t.id();
            }
            return h;
        }

        /** The key text: {@code f:op(id,id,...)}. */
        String key() {
            StringBuilder key = new StringBuilder("f:").append(op).append('(');
            for (int i = 0; i < args.length; i++) {
                key.append(i == 0 ? "" : ",").append(args[i].id());
            }
            return key.append(')').toString();
        }
    }

    record FlatKey(String op, Summands operands, Term constant) implements Form {
        @Override
        public boolean equals(Object o) {
            return o instanceof FlatKey k && k.constant == constant && k.op.equals(op) && k.operands.sameAs(operands);
        }

        @Override
        public int hashCode() {
            return (Long.hashCode(operands.hash) * 31 + op.hashCode()) * 31 + (constant == null ? 0 : constant.id());
        }
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

    /** How many terms this table holds (keyed and canonical ones). */
    int size() {
        return count;
    }

    /** Terms made from now on were first built by analysis {@code phase} at stage {@code stage}. */
    void at(int phase, int stage) {
        if (now.phase() != phase || now.stage() != stage) {
            now = new Term.Made(phase, stage);
        }
    }

    int phase() {
        return now.phase();
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

    /** The plain operations, by operation and arguments. */
    private final Map<OpKey, Term> ops = new HashMap<>();

    /**
     * The plain term {@code op(args)} (its key {@code f:op(ids)}), defined on {@code [lo, hi)}; a
     * new one inherits the first demotion among its arguments.
     */
    Term op(String op, Term[] args, java.util.function.Supplier<String> text, String label, long[] lo, long[] hi) {
        OpKey k = new OpKey(op, args);
        Term t = ops.get(k);
        if (t == null) {
            int id = count++;
            t = new Term(id, null, text, label, lo, hi, now, args, this, k);
            ops.put(k, t);
            inherit(t, args);
        } else if (t.made().phase() != now.phase() && rebuilt.add(t.id())) {
            inherit(t, args);
        }
        return t;
    }

    /**
     * The canonical {@code op} (sum, max or min) over {@code operands}: the one term of that
     * multiset; a new one inherits the first demotion among {@code sources} (the operands it was
     * built from directly).
     */
    Term flat(String op, Summands operands, Term constant, java.util.function.Supplier<String> text, long[] lo, long[] hi, Term... sources) {
        FlatKey k = new FlatKey(op, operands, constant);
        Term t = flats.get(k);
        if (t == null) {
            int id = count++;
            t = new Term(id, "flat:" + op + "#" + id, text, operands.label, lo.clone(), hi.clone(), now, sources.clone(), this, k);
            flats.put(k, t);
            inherit(t, sources);
        } else if (t.made().phase() != now.phase() && rebuilt.add(t.id())) {
            inherit(t, sources);
        }
        return t;
    }

    /** Per term, a bit per axis along which its value does not change (a broadcast); rank above 63 is never marked. */
    private final Map<Integer, Long> constantAxes = new HashMap<>();

    long constantAxes(Term t) {
        Long m = constantAxes.get(t.id());
        return m == null ? 0 : m;
    }

    void constantAxes(Term t, long mask) {
        if (mask != 0 && t.rank() < 64) {
            constantAxes.putIfAbsent(t.id(), mask);
        }
    }

    Term negationOf(Term t) {
        return negated.get(t.id());
    }

    void negation(Term neg, Term of) {
        negated.putIfAbsent(neg.id(), of);
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
    private final Map<Integer, Demotion> parentDemotions = new HashMap<>();
    private final Map<Integer, Demotion> demotions = new HashMap<>();
    /** The parent's terms that the child's analysis built again (their demotions inherited for the child). */
    private final java.util.Set<Integer> rebuilt = new java.util.HashSet<>();

    private Map<Integer, Demotion> demotions() {
        return now.phase() == PARENT ? parentDemotions : demotions;
    }

    /** The term with this key; a new one inherits the first demotion among {@code sources}. */
    Term of(String key, String text, String label, long[] lo, long[] hi, Term... sources) {
        return of(key, () -> text, label, lo, hi, sources);
    }

    /** The same, with the readable text made only if a diagnostic asks for it. */
    Term of(String key, java.util.function.Supplier<String> text, String label, long[] lo, long[] hi, Term... sources) {
        Term t = byKey.get(key);
        if (t == null) {
            int id = count++;
            t = new Term(id, key, text, label, lo.clone(), hi.clone(), now, sources.clone(), this);
            byKey.put(key, t);
            inherit(t, sources);
        } else if (t.made().phase() != now.phase() && rebuilt.add(t.id())) {
            inherit(t, sources);
        }
        return t;
    }

    private void inherit(Term t, Term[] sources) {
        Map<Integer, Demotion> ds = demotions();
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

    /** A term defined everywhere (constants, parameters, element indices) of rank {@code rank}. */
    Term unbounded(String key, String text, int rank) {
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
