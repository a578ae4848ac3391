package org.stagecheck.verifier.shard;

import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import org.stagecheck.spec.ir.ReducePool;

/**
 * An all-gather written as an all-reduce (docs/verifier.md, "All-gathers built from all-reduces"):
 * each chip lays its window of a value beside padding that the pool ignores (0 under a sum,
 * {@code -inf} under a max, {@code +inf} under a min), in a buffer as wide as the whole, and the
 * all-reduce combines the chips' buffers. A chip's padded buffer is its share of a reduction over
 * the chips: a partial whose one family is the value over the buffer's window, holding the
 * positions the chip filled. Chips that fill every position once (under a sum) complete it, and
 * the all-reduce gives the whole window; a position filled twice is an overlap, one filled by no
 * chip a gap, a window laid at another place than its own a view mismatch, as for any partial.
 */
final class Gathers {
    private Gathers() {}

    /**
     * The concat along {@code axis} of {@code ins} (values, none a partial) into {@code out}, when
     * one part is a window of a term and every other part the same padding constant: the partial
     * above; else null.
     */
    static Val padded(ShardState st, int axis, List<Val> ins, long[] out) {
        if (ins.size() < 2) {
            return null;
        }
        Val.Exact piece = null;
        long at = 0;
        long pieceAt = 0;
        String padding = null;
        for (Val v : ins) {
            if (!(v instanceof Val.Exact e) || e.hidden() != null) {
                return null;
            }
            String key = e.term().leafKey();
            if (key.equals("cf:0.0") || key.equals("cf:-0.0") || key.equals("cf:-Infinity") || key.equals("cf:Infinity")) {
                String kind = key.equals("cf:-0.0") ? "cf:0.0" : key;
                if (padding != null && !padding.equals(kind)) {
                    return null;
                }
                padding = kind;
            } else {
                if (piece != null) {
                    return null;
                }
                piece = e;
                pieceAt = at;
            }
            at += e.region().extent(axis);
        }
        if (piece == null || padding == null) {
            return null;
        }
        Region r = piece.region();
        Term t = piece.term();
        if (t.rank() != r.rank() || !r.origin(axis).isConstant()) {
            return null;
        }
        ReducePool pool = switch (padding) {
            case "cf:-Infinity" -> ReducePool.MAX;
            case "cf:Infinity" -> ReducePool.MIN;
            default -> ReducePool.SUM;
        };
        long start = r.origin(axis).constant();
        long windowStart = start - pieceAt;
        Sym[] origins = r.origins().clone();
        origins[axis] = Sym.of(windowStart);
        Region wide = new Region(origins, out);
        Term tag = st.terms.of("gather(" + t.id() + ";" + axis + ")", t::text, t.label(), t.lo(), t.hi(), t);
        Family f = new Family(t, Slices.of(start, start + r.extent(axis)), windowStart, windowStart + out[axis], false, null, 0, null, tag, false);
        SortedMap<Integer, Family> fams = new TreeMap<>();
        fams.put(f.key(), f);
        return new Val.Partial(pool, fams, wide, st.step(() -> "concat with " + (pool == ReducePool.SUM ? "zeros" : pool == ReducePool.MAX ? "-inf" : "+inf")
                + " lays positions " + f.slices() + " of " + t.label() + " in a buffer of [" + windowStart + "," + (windowStart + out[axis])
                + "): a " + pool.jsonName() + "-partial of an all-gather", null));
    }

    /**
     * {@code pa} combined by an all-reduce with {@code pool} (max or min) though made as a sum
     * partial: when every family is a window laid beside zeros by {@link #padded} and its values are
     * never negative (under a max) or never positive (under a min), the zeros leave the values
     * unchanged as the pool's identity would ({@code max(v, 0) = v} for {@code v >= 0}), so it is
     * the same gather under {@code pool}; else null.
     */
    static Val.Partial zeroPaddedUnder(Val.Partial pa, ReducePool pool) {
        if (pa.pool() != ReducePool.SUM || pool == ReducePool.SUM || pa.families().isEmpty()) {
            return null;
        }
        for (Family f : pa.families().values()) {
            boolean gather = f.tag() != null && f.tag().leafKey().startsWith("gather(");
            boolean signed = pool == ReducePool.MAX ? Signs.neverNegative(f.term()) : Signs.neverPositive(f.term());
            if (!gather || !signed) {
                return null;
            }
        }
        return new Val.Partial(pool, pa.families(), pa.region(), pa.origin());
    }
}
