package org.stagecheck.interp.eval;

import java.util.concurrent.ConcurrentHashMap;
import org.stagecheck.spec.ir.Shape;

/**
 * Index arrays that depend only on shapes, computed once per prepared program and shared by its
 * runs (and by concurrent runs: the maps are concurrent and the arrays are never written after
 * they are made). Callers must treat every array from here as read-only.
 */
public final class ShapeCache {
    /** For each output element, the input element it reads; {@code identity} when that is the element itself. */
    record Broadcasting(int[] source, boolean identity) {}

    private record BroadcastKey(Shape in, Shape out) {}

    private record IndexKey(Shape out, int axis) {}

    private final ConcurrentHashMap<BroadcastKey, Broadcasting> broadcasts = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<IndexKey, int[]> indices = new ConcurrentHashMap<>();

    /** {@link Broadcast#sourceIndex} of {@code in} to {@code out}, made once. */
    Broadcasting broadcast(Shape in, Shape out, String what) throws Fault {
        BroadcastKey key = new BroadcastKey(in, out);
        Broadcasting b = broadcasts.get(key);
        if (b == null) {
            int[] src = Broadcast.sourceIndex(in, out.toArray(), what);
            boolean identity = true;
            for (int e = 0; e < src.length && identity; e++) {
                identity = src[e] == e;
            }
            b = new Broadcasting(src, identity && in.elementCount() == src.length);
            broadcasts.putIfAbsent(key, b);
        }
        return b;
    }

    /** Element e's coordinate on {@code axis} of {@code out}, for every element, made once. */
    int[] index(Shape out, int axis) {
        return indices.computeIfAbsent(new IndexKey(out, axis), k -> {
            long[] strides = out.strides();
            int n = (int) out.elementCount();
            int extent = out.dim(axis);
            int[] v = new int[n];
            for (int e = 0; e < n; e++) {
                v[e] = (int) ((e / strides[axis]) % extent);
            }
            return v;
        });
    }
}
