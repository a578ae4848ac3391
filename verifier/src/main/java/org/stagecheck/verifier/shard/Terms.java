package org.stagecheck.verifier.shard;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/** The terms of one verification, hash-consed by key (docs/verifier.md, "Terms"). */
final class Terms {
    static final int TEXT_LIMIT = 160;
    /** The analysis of the unsplit parent program (run first when one is given). */
    static final int PARENT = 0;
    /** The analysis of the program being verified. */
    static final int CHILD = 1;
    private final Map<String, Term> byKey = new HashMap<>();
    /** The summands (or max/min operands) of every canonical associative-commutative term, by id. */
    private final Map<Integer, Flat> flats = new HashMap<>();
    /** {@code x} for every term {@code neg(x)}, by the negation's id. */
    private final Map<Integer, Term> negated = new HashMap<>();
    private Term.Made now = new Term.Made(CHILD, -1);

    /** An associative and commutative operation's operands, flattened and sorted by id. */
    record Flat(String op, java.util.List<Term> parts) {}

    /** Terms made from now on were first built by analysis {@code phase} at stage {@code stage}. */
    void at(int phase, int stage) {
        if (now.phase() != phase || now.stage() != stage) {
            now = new Term.Made(phase, stage);
        }
    }

    int phase() {
        return now.phase();
    }

    Flat flat(Term t) {
        return flats.get(t.id());
    }

    void flat(Term t, Flat f) {
        flats.putIfAbsent(t.id(), f);
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
            t = new Term(byKey.size(), key, text, label, lo.clone(), hi.clone(), now, sources.clone());
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
