package org.stagecheck.verifier.shard;

import java.util.ArrayList;
import java.util.List;

/**
 * The transposed terms of one verification, in one form (docs/verifier.md, "Canonical sums"): a
 * transpose of a transpose is one transpose by the composed permutation, the identity none, and
 * a reduction of a transposed term is the transpose of the reduction along the axis it came from,
 * so transposing, reducing and transposing back is the reduction along the other axis.
 */
final class Transposes {
    /** {@code transpose(inner)} by {@code perm}: axis i of the result is axis {@code perm[i]} of inner. */
    record Of(Term inner, List<Integer> perm) {}

    private final Terms terms;
    private final IdMap<Of> byId = new IdMap<>();

    Transposes(Terms terms) {
        this.terms = terms;
    }

    /** What transposed term {@code t} is a transpose of, or null when it is none. */
    Of of(Term t) {
        return byId.get(t.id());
    }

    /** {@code t} transposed by {@code perm} ({@code t.rank() == perm.size()}). */
    Term permuted(Term t, List<Integer> perm) {
        Of inner = byId.get(t.id());
        if (inner != null) {
            // transpose(transpose(u, p), q): axis i is axis q[i] of the first, axis p[q[i]] of u
            List<Integer> composed = new ArrayList<>();
            for (int q : perm) {
                composed.add(inner.perm().get(q));
            }
            return permuted(inner.inner(), composed);
        }
        boolean identity = true;
        for (int i = 0; i < perm.size(); i++) {
            identity &= perm.get(i) == i;
        }
        if (identity) {
            return t;
        }
        long[] lo = new long[perm.size()];
        long[] hi = new long[perm.size()];
        for (int i = 0; i < lo.length; i++) {
            lo[i] = t.lo()[perm.get(i)];
            hi[i] = t.hi()[perm.get(i)];
        }
        Term out = terms.of("tr(" + t.id() + ";" + perm + ")", () -> "transpose(" + t.text() + ")", t.label(), lo, hi, t);
        byId.putIfAbsent(out.id(), new Of(t, List.copyOf(perm)));
        return out;
    }
}
