package org.stagecheck.verifier.shard;

import java.util.Arrays;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Puts a value into a common frame (docs/verifier.md, "Frames"): an elementwise op reads element
 * {@code j} of every input at once, so input {@code k} (term {@code T_k} over region {@code R_k})
 * contributes {@code T_k[j + (R_k.origin - frame)]}: the term shifted by the distance between its
 * window and the frame. A broadcast axis reads one fixed position, which is part of the key.
 * Shifts, not windows, enter the key, so two chips that read the same relative windows of the
 * same terms build the same term, and two that read different ones do not.
 */
final class Align {
    private final Terms terms;
    private final Ops ops;

    Align(Terms terms, Ops ops) {
        this.terms = terms;
        this.ops = ops;
    }

    /** The frame of an op writing {@code outExt}: per axis the origin of the first input not broadcast there. */
    static Sym[] frame(Iterable<Region> inputs, long[] outExt) {
        Sym[] f = new Sym[outExt.length];
        for (Region r : inputs) {
            if (r == null) {
                continue;
            }
            int lead = outExt.length - r.rank();
            for (int a = Math.max(0, lead); a < outExt.length; a++) {
                int ai = a - lead;
                if (f[a] == null && !(r.extent(ai) == 1 && outExt[a] != 1)) {
                    f[a] = r.origin(ai);
                }
            }
        }
        for (int a = 0; a < f.length; a++) {
            if (f[a] == null) {
                f[a] = Sym.ZERO;
            }
        }
        return f;
    }

    /**
     * The last alignments made, a slot per term id modulo the size: stage after stage reads the
     * same buffer value (the same term over the same region object) in the same frame, and finding
     * it here skips making its key text and looking the key up (docs/verifier.md, "Scale"). The
     * result depends only on what the entry holds: the term, the region, the frame, the output
     * extent, the term's constant axes (which may be marked later) and the analysis (the parent's
     * and the child's share the terms, not their demotions).
     */
    private final Aligned[] recent = new Aligned[256];

    private record Aligned(Term t, Region r, Sym[] frame, long[] outExt, long constant, long oneWide, int phase, Term result) {
        boolean same(Term t2, Region r2, Sym[] frame2, long[] outExt2, long constant2, long oneWide2, int phase2) {
            return t == t2 && r == r2 && constant == constant2 && oneWide == oneWide2 && phase == phase2 && Arrays.equals(frame, frame2)
                    && Arrays.equals(outExt, outExt2);
        }
    }

    /** {@code t} (held over {@code r}) as seen from {@code frame}, no axis one element wide in every input ({@link #oneWide}). */
    Term term(Term t, Region r, Sym[] frame, long[] outExt) {
        return term(t, r, frame, outExt, 0);
    }

    /**
     * {@code t} (held over {@code r}) as seen from {@code frame}; {@code oneWide} marks the axes along
     * which the op's every input has one element ({@link #oneWide}), where a term with one element
     * read at its own position is read in place rather than as a broadcast.
     */
    Term term(Term t, Region r, Sym[] frame, long[] outExt, long oneWide) {
        long constant = terms.constantAxes(t);
        int phase = terms.phase();
        int slot = t.id() & (recent.length - 1);
        Aligned known = recent[slot];
        if (known != null && known.same(t, r, frame, outExt, constant, oneWide, phase)) {
            return known.result();
        }
        Term result = aligned(t, r, frame, outExt, constant, oneWide);
        if (result != t) {
            // a read in place is found again as cheaply as it is made: only alignments made are kept
            // (a chain's accumulator, a new term at every stage, would evict them for nothing)
            recent[slot] = new Aligned(t, r, frame.clone(), outExt.clone(), constant, oneWide, phase, result);
        }
        return result;
    }

    /**
     * The axes (a bit each, below 64) of an output one element wide along which every input has
     * one element too: its term has one element there or is known the same along the axis. Along
     * such an axis no input varies, so the op's value there is a value of its own, not a window of
     * a wider one; a one-element term read there at its own position is read in place (the term
     * itself), so a copy of a row sum ({@code y = in0}) is the row sum and {@code k * sum(x)}
     * written after the sum is the term the reduction of {@code k * x} builds (docs/verifier.md,
     * "Regions"). Where another input is a window of a wider term, the one-element term is read as
     * a broadcast as before, its key independent of the frame that window sets. This is the
     * start: the output's one-element axes; {@link #oneWide(long, Term, Region, long[])} takes
     * away, input by input, the axes where the input has more than one element.
     */
    static long oneWideAxes(long[] outExt) {
        long mask = 0;
        for (int a = 0; a < outExt.length && a < 64; a++) {
            if (outExt[a] == 1) {
                mask |= 1L << a;
            }
        }
        return mask;
    }

    /** {@code mask} ({@link #oneWideAxes}) less the axes along which input term {@code t}, held over {@code r}, has more than one element. */
    long oneWide(long mask, Term t, Region r, long[] outExt) {
        if (mask == 0 || t == null || r == null) {
            return mask;
        }
        int lead = outExt.length - r.rank();
        long constant = terms.constantAxes(t);
        for (int a = Math.max(0, lead); a < outExt.length && a < 64; a++) {
            int ai = a - lead;
            boolean single = ai < t.rank() && t.bounded(ai) && t.hi()[ai] - t.lo()[ai] == 1;
            if (!single && (constant >> ai & 1) == 0) {
                mask &= ~(1L << a);
            }
        }
        return mask;
    }

    private Term aligned(Term t, Region r, Sym[] frame, long[] outExt, long constant, long oneWide) {
        Term inner = ops.identities().elementwiseArgument(t);
        if (inner != null && inner.rank() == t.rank()) {
            // an elementwise function read elsewhere is the function of its argument read there, so
            // exp(max(x)) is one term whether exp was applied before or after the read (docs/verifier.md,
            // "Monotone functions and rescaled maxima")
            // (its argument read in place: the function of it is t itself, without building it again,
            // with the book-keeping of finding it again: a parent's term met by the child inherits
            // the child's demotions, Terms#foundAgain)
            Term read = term(inner, r, frame, outExt, oneWide);
            return read == inner ? terms.foundAgain(t) : ops.identities().reapply(t, read);
        }
        int lead = frame.length - r.rank();
        Term core = ops.rescales().rescaledCore(t);
        if (core != null && lead == 0 && t.rank() == r.rank() && keepsRows(r, frame, outExt, ops.rescales().rescaleConstantAxes(t))) {
            // a value times rescale factors read where the factors' rows are not moved: the value read there, times them
            return ops.rescales().withFactorsOf(t, term(core, r, frame, outExt, oneWide));
        }
        if (lead < 0 || t.rank() != r.rank()) {
            return terms.of("opaque-align:" + t.id() + r.key() + frameKey(frame), () -> t.text(), t.label(),
                    Terms.unboundedLo(frame.length), Terms.unboundedHi(frame.length), t);
        }
        if (readsInPlace(t, r, frame, outExt, lead, constant, oneWide)) {
            return t;
        }
        StringBuilder spec = new StringBuilder();
        boolean identity = lead == 0;
        long madeConstant = 0;
        long[] lo = new long[frame.length];
        long[] hi = new long[frame.length];
        for (int a = 0; a < frame.length; a++) {
            lo[a] = Long.MIN_VALUE;
            hi[a] = Long.MAX_VALUE;
            if (a < lead) {
                spec.append(";n");
                continue;
            }
            int ai = a - lead;
            // one element read at a fixed position: a broadcast, or an axis on which the term has one element
            boolean single = t.hi()[ai] != Long.MAX_VALUE && t.lo()[ai] != Long.MIN_VALUE && t.hi()[ai] - t.lo()[ai] == 1;
            if (r.extent(ai) == 1 && (constant >> ai & 1) != 0) {
                // already the same at every position of this axis (a broadcast made earlier): reading one is reading all
                spec.append(";c");
                madeConstant |= 1L << a;
                continue;
            }
            if (r.extent(ai) == 1 && (outExt[a] != 1 || single && !inPlace(r, frame, a, ai, oneWide))) {
                spec.append(";b").append(r.origin(ai).key());
                identity = false;
                madeConstant |= 1L << a;
                continue;
            }
            Long d = r.origin(ai).minus(frame[a]);
            if (d == null) {
                spec.append(";x").append(r.origin(ai).key()).append('|').append(frame[a].key());
                identity = false;
                continue;
            }
            spec.append(";s").append(d);
            identity &= d == 0;
            lo[a] = Terms.shiftBound(t.lo()[ai], d);
            hi[a] = Terms.shiftBound(t.hi()[ai], d);
        }
        if (identity) {
            return t;
        }
        Term aligned = terms.of("al(" + t.id() + spec + ")", () -> t.text(), t.label(), lo, hi, t);
        terms.constantAxes(aligned, madeConstant);
        return aligned;
    }

    /**
     * Whether {@link #term} reads {@code t} as it is (the loop there would find the identity),
     * decided without making the key text or bounds it would build otherwise: no leading axis,
     * and on every axis either a read of an axis the term is constant along or no shift and no
     * broadcast.
     */
    private static boolean readsInPlace(Term t, Region r, Sym[] frame, long[] outExt, int lead, long constant, long oneWide) {
        if (lead != 0) {
            return false;
        }
        for (int a = 0; a < frame.length; a++) {
            if (r.extent(a) == 1 && (constant >> a & 1) != 0) {
                continue;
            }
            boolean single = t.hi()[a] != Long.MAX_VALUE && t.lo()[a] != Long.MIN_VALUE && t.hi()[a] - t.lo()[a] == 1;
            if (r.extent(a) == 1 && (outExt[a] != 1 || single && !inPlace(r, frame, a, a, oneWide))) {
                return false;
            }
            Long d = r.origin(a).minus(frame[a]);
            if (d == null || d != 0) {
                return false;
            }
        }
        return true;
    }

    /** Whether axis {@code a} (axis {@code ai} of {@code r}) is one element wide in every input and {@code r} is read there at its own position. */
    private static boolean inPlace(Region r, Sym[] frame, int a, int ai, long oneWide) {
        if (a >= 64 || (oneWide >> a & 1) == 0) {
            return false;
        }
        Long d = r.origin(ai).minus(frame[a]);
        return d != null && d == 0;
    }

    /** Whether reading {@code r} in {@code frame} neither shifts nor broadcasts any axis outside {@code constantAxes}. */
    private static boolean keepsRows(Region r, Sym[] frame, long[] outExt, long constantAxes) {
        for (int a = 0; a < r.rank(); a++) {
            if (a < 64 && (constantAxes >> a & 1) != 0) {
                continue;
            }
            Long d = r.origin(a).minus(frame[a]);
            if (d == null || d != 0 || (r.extent(a) == 1 && outExt[a] != 1)) {
                return false;
            }
        }
        return true;
    }

    SortedMap<Integer, Family> families(Map<Integer, Family> fams, Region r, Sym[] frame, long[] outExt, long oneWide) {
        SortedMap<Integer, Family> out = new TreeMap<>();
        for (Family f : fams.values()) {
            Family g = f.map(t -> term(t, r, frame, outExt, oneWide));
            out.put(g.key(), g);
        }
        return out;
    }

    static String frameKey(Sym[] frame) {
        StringBuilder sb = new StringBuilder("@");
        for (Sym s : frame) {
            sb.append(s.key()).append(',');
        }
        return sb.toString();
    }
}
