package org.stagecheck.verifier.shard;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * Rescale factors (docs/verifier.md, "Monotone functions and rescaled maxima"):
 * {@code exp(a * (m_c - M))}, chip c's local extreme {@code m_c} of a family against its completed
 * value {@code M}. A product of terms carrying them is kept as its factor without them times the
 * factors' powers, in one order; powers add, and a factor at power 0 is gone:
 * {@code exp(x - m_c) * exp(m_c - M) = exp(x - M)}.
 */
final class RescaleFactors {
    private final Terms terms;
    private final Ops ops;
    /** Products carrying rescale factors: their factor without them, and the factors' powers by rescale key. */
    private final IdMap<Rescaled> rescaled = new IdMap<>();
    /** Per rescale key: the factor at power 1 (demoted where it was made; its constant axes marked). */
    private final Map<String, Term> kappaBase = new HashMap<>();

    /** {@code core} (null: 1) times {@code exp(power * delta)} for each rescale key. */
    private record Rescaled(Term core, TreeMap<String, Double> powers) {}

    RescaleFactors(Terms terms, Ops ops) {
        this.terms = terms;
        this.ops = ops;
    }

    /**
     * The factor {@code exp(power * (m_c - M))}: chip c's local extreme {@code m_c} of a family against
     * the family's completed value {@code M}, named by {@code key} (the family, the slices the chip
     * holds, and where the value was read). It differs from chip to chip, so it is demoted: used in
     * any way but cancelled by its inverse, it is the chip's share taken as a value.
     */
    Term kappa(String key, double power, int rank, long constantAxes, String text, Demotion why) {
        Term base = kappaBase.get(key);
        if (base == null) {
            base = terms.demoted("kappa(" + key + ")", "exp(" + text + ")", "", Terms.unboundedLo(rank), Terms.unboundedHi(rank), why);
            terms.constantAxes(base, constantAxes);
            kappaBase.put(key, base);
        }
        TreeMap<String, Double> powers = new TreeMap<>();
        powers.put(key, power);
        return attach(null, powers, rank);
    }

    private Term kappaPower(String key, double power) {
        Term base = kappaBase.get(key);
        if (power == 1.0) {
            return base;
        }
        Term t = terms.of("kappa(" + key + ")^" + power, () -> base.text() + "^" + power, "", base.lo(), base.hi(), base);
        terms.constantAxes(t, terms.constantAxes(base));
        return t;
    }

    /** {@code core} times the factors, built in one order (by key), remembered so a later product can cancel them. */
    private Term attach(Term core, TreeMap<String, Double> powers, int rank) {
        Term t = core;
        for (Map.Entry<String, Double> e : powers.entrySet()) {
            Term k = kappaPower(e.getKey(), e.getValue());
            t = t == null ? k : ops.plainMul(t, k);
        }
        if (t == null) {
            return terms.unbounded("cf:1.0", "1.0", rank);
        }
        if (!powers.isEmpty()) {
            rescaled.putIfAbsent(t.id(), new Rescaled(core, powers));
        }
        return t;
    }

    /** The factor of {@code t} without its rescale factors, when it has any and another factor; else null. */
    Term rescaledCore(Term t) {
        Rescaled r = rescaled.get(t.id());
        return r == null ? null : r.core();
    }

    /** A rescale factor {@code t} carries (its power-1 term, demoted where it was made), or null. */
    Term rescaleFactorOf(Term t) {
        Rescaled r = rescaled.get(t.id());
        return r == null ? null : kappaBase.get(r.powers().firstKey());
    }

    /** The axes along which every rescale factor of {@code t} is constant. */
    long rescaleConstantAxes(Term t) {
        long mask = -1L;
        for (String k : rescaled.get(t.id()).powers().keySet()) {
            mask &= terms.constantAxes(kappaBase.get(k));
        }
        return mask;
    }

    /** {@code core} times the rescale factors of {@code t}. */
    Term withFactorsOf(Term t, Term core) {
        Rescaled r = rescaled.get(t.id());
        return attach(core, r.powers(), Math.max(t.rank(), core.rank()));
    }

    private Rescaled decompose(Term t) {
        Rescaled r = rescaled.get(t.id());
        return r != null ? r : new Rescaled(isOne(t) ? null : t, new TreeMap<>());
    }

    /** {@code a * b}, rescale factors' powers added and cancelled at 0; null when neither carries one (a plain product). */
    Term product(Term a, Term b) {
        if (rescaled.isEmpty()) {
            return null; // no product carries a factor yet (the usual case), so neither does a or b
        }
        Rescaled ra = decompose(a);
        Rescaled rb = decompose(b);
        if (ra.powers().isEmpty() && rb.powers().isEmpty()) {
            return null;
        }
        TreeMap<String, Double> powers = new TreeMap<>(ra.powers());
        rb.powers().forEach((k, p) -> powers.merge(k, p, Double::sum));
        powers.values().removeIf(p -> p == 0.0);
        Term core = ra.core() == null ? rb.core() : rb.core() == null ? ra.core() : ops.op("mul", List.of(ra.core(), rb.core()));
        return attach(core, powers, Math.max(a.rank(), b.rank()));
    }

    /**
     * {@code t} with its rescale factors taken out of an operation along axis {@code ax} when every
     * one is constant along it: {@code inner(core) * factors}; null when {@code t} carries none.
     */
    Term outOf(Term t, int ax, Identities identities, UnaryOperator<Term> inner) {
        Rescaled r = rescaled.get(t.id());
        if (r == null || r.core() == null) {
            return null;
        }
        for (String k : r.powers().keySet()) {
            if (!identities.constantAlong(kappaBase.get(k), ax)) {
                return null;
            }
        }
        return attach(inner.apply(r.core()), r.powers(), t.rank());
    }

    private static boolean isOne(Term t) {
        return t.leafKey().equals("cf:1.0");
    }
}
