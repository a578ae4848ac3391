package org.stagecheck.verifier.shard;

import java.util.Arrays;

/**
 * A box of a logical index space: per axis an origin ({@link Sym}) and an extent. A buffer
 * holding term {@code T} over region {@code R} has {@code buffer[i] = T[R.origin + i]}
 * (docs/verifier.md, "Regions").
 */
final class Region {
    private final Sym[] origin;
    private final long[] extent;
    /** Made on first use: most regions are never compared or printed. */
    private String key;

    Region(Sym[] origin, long[] extent) {
        this.origin = origin.clone();
        this.extent = extent.clone();
    }

    /** The region {@code [0, dims)}. */
    static Region at0(long[] dims) {
        Sym[] o = new Sym[dims.length];
        Arrays.fill(o, Sym.ZERO);
        return new Region(o, dims);
    }

    int rank() {
        return origin.length;
    }

    Sym origin(int axis) {
        return origin[axis];
    }

    long extent(int axis) {
        return extent[axis];
    }

    Sym[] origins() {
        return origin.clone();
    }

    long[] extents() {
        return extent.clone();
    }

    String key() {
        if (key == null) {
            StringBuilder sb = new StringBuilder("[");
            for (int a = 0; a < origin.length; a++) {
                sb.append(a == 0 ? "" : ", ").append(origin[a].key()).append(":+").append(extent[a]);
            }
            key = sb.append(']').toString();
        }
        return key;
    }

    /** The same region with axis {@code axis} replaced. */
    Region with(int axis, Sym o, long e) {
        Sym[] no = origin.clone();
        long[] ne = extent.clone();
        no[axis] = o;
        ne[axis] = e;
        return new Region(no, ne);
    }

    /** Every origin moved by {@code by} (per axis). */
    Region shifted(long[] by, long[] newExtent) {
        Sym[] no = new Sym[origin.length];
        for (int a = 0; a < no.length; a++) {
            no[a] = origin[a].plus(by[a]);
        }
        return new Region(no, newExtent);
    }

    /** Whether the two boxes provably share no element (on some axis their distance is known and large enough). */
    boolean disjointFrom(Region o) {
        return disjointFrom(o, null);
    }

    /**
     * Whether the two boxes share no element in any run: on some axis their distance is a constant
     * large enough, or ({@code positions} not null) bounded by the ranges of the sources it
     * depends on so that their windows are apart for every value (docs/verifier.md, "Regions").
     */
    boolean disjointFrom(Region o, Positions positions) {
        if (o.rank() != rank()) {
            return false;
        }
        for (int a = 0; a < rank(); a++) {
            Long d = o.origin[a].minus(origin[a]);
            if (d != null ? d >= extent[a] || -d >= o.extent[a] : positions != null && positions.apart(origin[a], extent[a], o.origin[a], o.extent[a])) {
                return true;
            }
        }
        return false;
    }

    /**
     * Where {@code inner} starts inside this box, per axis, when it provably lies within it; else null.
     */
    long[] offsetOf(Region inner) {
        if (inner.rank() != rank()) {
            return null;
        }
        long[] off = new long[rank()];
        for (int a = 0; a < rank(); a++) {
            Long d = inner.origin[a].minus(origin[a]);
            if (d == null || d < 0 || d + inner.extent[a] > extent[a]) {
                return null;
            }
            off[a] = d;
        }
        return off;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Region r && r.key().equals(key());
    }

    @Override
    public int hashCode() {
        return key().hashCode();
    }

    @Override
    public String toString() {
        return key();
    }
}
