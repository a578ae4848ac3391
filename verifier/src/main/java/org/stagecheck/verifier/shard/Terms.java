package org.stagecheck.verifier.shard;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/** The terms of one verification, hash-consed by key (docs/verifier.md, "Terms"). */
final class Terms {
    static final int TEXT_LIMIT = 160;
    private final Map<String, Term> byKey = new HashMap<>();
    /** For a term built from a demoted partial (directly or not), the latest such demotion. */
    private final Map<Integer, Demotion> demotions = new HashMap<>();

    /** The term with this key; a new one inherits the first demotion among {@code sources}. */
    Term of(String key, String text, String label, long[] lo, long[] hi, Term... sources) {
        Term t = byKey.get(key);
        if (t == null) {
            String shown = text.length() > TEXT_LIMIT ? text.substring(0, TEXT_LIMIT) + "..." : text;
            t = new Term(byKey.size(), key, shown, label, lo.clone(), hi.clone());
            byKey.put(key, t);
            Demotion latest = null;
            for (Term s : sources) {
                Demotion d = s == null ? null : demotions.get(s.id());
                if (d != null && (latest == null || d.stageIndex() > latest.stageIndex())) {
                    latest = d;
                }
            }
            if (latest != null) {
                demotions.put(t.id(), latest);
            }
        }
        return t;
    }

    /** A term defined on {@code [0, dims)}. */
    Term of(String key, String text, String label, long[] dims, Term... sources) {
        return of(key, text, label, new long[dims.length], dims, sources);
    }

    /** A term that stands for a partial used as a plain value, remembering where. */
    Term demoted(String key, String text, String label, long[] lo, long[] hi, Demotion why, Term... sources) {
        Term t = of(key, text, label, lo, hi, sources);
        demotions.put(t.id(), why);
        return t;
    }

    /** The demotion {@code t} was built from, or null. */
    Demotion demotion(Term t) {
        return demotions.get(t.id());
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
