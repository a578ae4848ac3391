package org.stagecheck.interp.eval;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Stage;

/**
 * Index arrays that depend only on shapes, and the stages' compiled expressions, computed once per
 * prepared program and shared by its runs (and by concurrent runs: the maps are concurrent and the
 * arrays are never written after they are made). Callers must treat every array from here as
 * read-only. It also pools the expressions' working columns ({@link Scratch}), one per run at a time.
 */
public final class ShapeCache {
    /** For each output element, the input element it reads; {@code identity} when that is the element itself. */
    record Broadcasting(int[] source, boolean identity) {}

    /** Keys compare dimensions by index: a shape's own equals and hashCode walk its list with an iterator. */
    private record BroadcastKey(Shape in, Shape out) {
        @Override
        public boolean equals(Object o) {
            return o instanceof BroadcastKey k && sameDims(in, k.in) && sameDims(out, k.out);
        }

        @Override
        public int hashCode() {
            return 31 * dimsHash(in) + dimsHash(out);
        }
    }

    private record IndexKey(Shape out, int axis) {
        @Override
        public boolean equals(Object o) {
            return o instanceof IndexKey k && axis == k.axis && sameDims(out, k.out);
        }

        @Override
        public int hashCode() {
            return 31 * dimsHash(out) + axis;
        }
    }

    /** Whether {@code a} and {@code b} have the same dimensions. */
    static boolean sameDims(Shape a, Shape b) {
        if (a == b) {
            return true;
        }
        int rank = a.rank();
        if (rank != b.rank()) {
            return false;
        }
        for (int i = 0; i < rank; i++) {
            if (a.dim(i) != b.dim(i)) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code a} has the dimensions {@code dims}. */
    static boolean sameDims(Shape a, int[] dims) {
        if (a.rank() != dims.length) {
            return false;
        }
        for (int i = 0; i < dims.length; i++) {
            if (a.dim(i) != dims[i]) {
                return false;
            }
        }
        return true;
    }

    private static int dimsHash(Shape s) {
        int h = s.rank();
        for (int i = 0; i < s.rank(); i++) {
            h = 31 * h + s.dim(i);
        }
        return h;
    }

    private final ConcurrentHashMap<BroadcastKey, Broadcasting> broadcasts = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<IndexKey, int[]> indices = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<ExprSite, CompiledExpr> exprs = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Scratch> scratch = new ConcurrentLinkedQueue<>();

    /** Expression {@code part} of a stage (a Scalar stage has one per result), the stage by identity. */
    private static final class ExprSite {
        private final Stage stage;
        private final int part;

        ExprSite(Stage stage, int part) {
            this.stage = stage;
            this.part = part;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof ExprSite s && s.stage == stage && s.part == part;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(stage) * 31 + part;
        }
    }

    /** The compiled expression {@code part} of {@code stage}, or null when none was compiled yet. */
    CompiledExpr compiled(Stage stage, int part) {
        return exprs.get(new ExprSite(stage, part));
    }

    void remember(Stage stage, int part, CompiledExpr e) {
        exprs.put(new ExprSite(stage, part), e);
    }

    /** Working columns for one evaluation: give them back with {@link #giveBack} when it is done. */
    Scratch takeScratch() {
        Scratch s = scratch.poll();
        return s == null ? new Scratch() : s;
    }

    void giveBack(Scratch s) {
        scratch.offer(s);
    }

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
