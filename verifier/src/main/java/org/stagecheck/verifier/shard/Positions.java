package org.stagecheck.verifier.shard;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * What is known of the values symbolic positions take (docs/verifier.md, "Regions"): each
 * symbolic part of a {@link Sym} is an affine form over parameters and one-element values
 * ({@link Affine}), and each such source ranges over known values (a parameter over its declared
 * range), so the distance between two positions is an affine form whose range bounds it for every
 * run. Two boxes at {@code pos} and at row 4 are disjoint for every {@code pos} in {@code [0, 3]},
 * though their distance is no constant.
 */
final class Positions {
    /** The affine form (constant 0) of every symbolic part made so far, by its text. */
    private final Map<String, Affine> forms = new HashMap<>();
    private final Function<String, long[]> rangeOf;
    /** Another analysis' positions whose symbolic parts this one may meet (the unsplit parent's); null when none. */
    private Positions also;

    Positions(Function<String, long[]> rangeOf) {
        this.rangeOf = rangeOf;
    }

    /** Records that position {@code s} is the affine form {@code a} (as {@link Affine#sym()} made it). */
    void remember(Sym s, Affine a) {
        if (!s.isConstant()) {
            forms.putIfAbsent(s.symbolic(), new Affine(0, new java.util.TreeMap<>(a.coefficients())));
        }
    }

    /**
     * Lets this analysis judge positions the other one made, with this analysis' ranges first
     * (the split's parameters, which the parent's contain or are reported) and the other's for
     * sources this one does not know.
     */
    void alsoKnow(Positions other) {
        this.also = other;
    }

    private Affine form(Sym s) {
        if (s.isConstant()) {
            return Affine.of(s.constant());
        }
        Affine a = forms.get(s.symbolic());
        if (a == null && also != null) {
            a = also.forms.get(s.symbolic());
        }
        return a == null ? null : a.plus(Affine.of(s.constant()));
    }

    private long[] range(String source) {
        long[] r = rangeOf.apply(source);
        return r == null && also != null ? also.rangeOf.apply(source) : r;
    }

    /** The values of {@code b - a}, {@code [lo, hi]}, for every run; null when not bounded. */
    private long[] distance(Sym a, Sym b) {
        Affine fa = form(a);
        Affine fb = form(b);
        if (fa == null || fb == null) {
            return null;
        }
        try {
            return fb.plus(fa.times(-1)).range(this::range);
        } catch (ArithmeticException overflow) {
            return null;
        }
    }

    /** Whether {@code [a, a + ea)} and {@code [b, b + eb)} share no element in any run. */
    boolean apart(Sym a, long ea, Sym b, long eb) {
        long[] d = distance(a, b);
        return d != null && (d[0] >= ea || d[1] <= -eb);
    }

    /** Whether {@code [b, b + eb)} lies within {@code [a, a + ea)} in every run. */
    boolean inside(Sym a, long ea, Sym b, long eb) {
        long[] d = distance(a, b);
        return d != null && d[0] >= 0 && d[1] <= ea - eb;
    }
}
