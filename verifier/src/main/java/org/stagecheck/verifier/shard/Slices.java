package org.stagecheck.verifier.shard;

import java.util.Arrays;

/**
 * An immutable set of disjoint half-open ranges {@code [start, end)} of a contraction axis, sorted
 * by start (brief, "Certificates": a partial is "summed over a known set of contraction slices").
 * Adjacent ranges are merged, so two sets covering the same elements are equal.
 */
public final class Slices {
    /** start0, end0, start1, end1, ... sorted, disjoint, non-adjacent, non-empty ranges. */
    private final long[] bounds;

    private Slices(long[] bounds) {
        this.bounds = bounds;
    }

    public static Slices of(long start, long end) {
        return new Slices(start < end ? new long[] {start, end} : new long[0]);
    }

    public static Slices empty() {
        return new Slices(new long[0]);
    }

    public boolean isEmpty() {
        return bounds.length == 0;
    }

    /** How many separate ranges the set has. */
    public int ranges() {
        return bounds.length / 2;
    }

    /** The first element (the set must not be empty). */
    public long start() {
        return bounds[0];
    }

    /** Number of elements covered. */
    public long length() {
        long n = 0;
        for (int i = 0; i < bounds.length; i += 2) {
            n += bounds[i + 1] - bounds[i];
        }
        return n;
    }

    /** Whether some element lies in both sets. */
    public boolean overlaps(Slices other) {
        int i = 0;
        int j = 0;
        while (i < bounds.length && j < other.bounds.length) {
            long lo = Math.max(bounds[i], other.bounds[j]);
            long hi = Math.min(bounds[i + 1], other.bounds[j + 1]);
            if (lo < hi) {
                return true;
            }
            if (bounds[i + 1] <= other.bounds[j + 1]) {
                i += 2;
            } else {
                j += 2;
            }
        }
        return false;
    }

    /** The elements in either set (callers check {@link #overlaps} first when overlap is an error). */
    public Slices union(Slices other) {
        long[] all = new long[bounds.length + other.bounds.length];
        System.arraycopy(bounds, 0, all, 0, bounds.length);
        System.arraycopy(other.bounds, 0, all, bounds.length, other.bounds.length);
        return normalised(all);
    }

    /** The elements of {@code [0, extent)} this set does not cover. */
    public Slices gapsIn(long extent) {
        long[] out = new long[bounds.length + 2];
        int n = 0;
        long cursor = 0;
        for (int i = 0; i < bounds.length; i += 2) {
            if (bounds[i] > cursor) {
                out[n++] = cursor;
                out[n++] = Math.min(bounds[i], extent);
            }
            cursor = Math.max(cursor, bounds[i + 1]);
        }
        if (cursor < extent) {
            out[n++] = cursor;
            out[n++] = extent;
        }
        return normalised(Arrays.copyOf(out, n));
    }

    /** Whether some element lies outside {@code [0, extent)}. */
    public boolean exceeds(long extent) {
        return bounds.length > 0 && (bounds[0] < 0 || bounds[bounds.length - 1] > extent);
    }

    /**
     * The elements at local positions {@code [from, to)}, where the set's elements are numbered
     * 0, 1, ... in order (a buffer holding this set along an axis, sliced on that axis).
     */
    public Slices sub(long from, long to) {
        long[] out = new long[bounds.length];
        int n = 0;
        long local = 0;
        for (int i = 0; i < bounds.length; i += 2) {
            long len = bounds[i + 1] - bounds[i];
            long lo = Math.max(from, local);
            long hi = Math.min(to, local + len);
            if (lo < hi) {
                out[n++] = bounds[i] + (lo - local);
                out[n++] = bounds[i] + (hi - local);
            }
            local += len;
        }
        return normalised(Arrays.copyOf(out, n));
    }

    private static Slices normalised(long[] raw) {
        int pairs = raw.length / 2;
        long[][] ranges = new long[pairs][];
        for (int i = 0; i < pairs; i++) {
            ranges[i] = new long[] {raw[2 * i], raw[2 * i + 1]};
        }
        Arrays.sort(ranges, (a, b) -> Long.compare(a[0], b[0]));
        long[] out = new long[raw.length];
        int n = 0;
        for (long[] r : ranges) {
            if (r[0] >= r[1]) {
                continue;
            }
            if (n > 0 && r[0] <= out[n - 1]) {
                out[n - 1] = Math.max(out[n - 1], r[1]);
            } else {
                out[n++] = r[0];
                out[n++] = r[1];
            }
        }
        return new Slices(Arrays.copyOf(out, n));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Slices s && Arrays.equals(bounds, s.bounds);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bounds);
    }

    /** {@code [0,512)} or {@code [0,256) + [512,768)}; {@code {}} when empty. */
    @Override
    public String toString() {
        if (bounds.length == 0) {
            return "{}";
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < bounds.length; i += 2) {
            if (i > 0) {
                sb.append(" + ");
            }
            sb.append('[').append(bounds[i]).append(',').append(bounds[i + 1]).append(')');
        }
        return sb.toString();
    }
}
