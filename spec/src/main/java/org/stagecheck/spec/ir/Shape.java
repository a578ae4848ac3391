package org.stagecheck.spec.ir;

import java.util.Arrays;
import java.util.List;

/**
 * The dimensions of a tensor or buffer, outermost first, row-major.
 *
 * <p>Construction checks only what one value can know: no negative dimension, rank at most
 * {@link #MAX_RANK}. Whether an element count fits in memory is the validator's judgement.
 */
public record Shape(List<Integer> dims) {
    /** The largest rank a shape may have; more is never needed by a stage program. */
    public static final int MAX_RANK = 8;

    public Shape {
        dims = List.copyOf(dims);
        if (dims.size() > MAX_RANK) {
            throw new IllegalArgumentException("a shape has at most " + MAX_RANK + " dimensions, not " + dims.size());
        }
        for (int d : dims) {
            if (d < 0) {
                throw new IllegalArgumentException("a dimension cannot be negative: " + dims);
            }
        }
    }

    public static Shape of(int... dims) {
        // a plain loop: shapes are made per stage on the evaluator's hot path
        Integer[] boxed = new Integer[dims.length];
        for (int i = 0; i < dims.length; i++) {
            boxed[i] = dims[i];
        }
        return new Shape(Arrays.asList(boxed));
    }

    public int rank() {
        return dims.size();
    }

    public int dim(int axis) {
        return dims.get(axis);
    }

    /** Number of elements, computed in long so that an oversized shape is seen, not wrapped. */
    public long elementCount() {
        long n = 1;
        for (int d : dims) {
            n = Math.multiplyExact(n, (long) d);
        }
        return n;
    }

    public int[] toArray() {
        int[] a = new int[dims.size()];
        for (int i = 0; i < a.length; i++) {
            a[i] = dims.get(i);
        }
        return a;
    }

    /** Row-major strides, in elements. */
    public long[] strides() {
        long[] s = new long[dims.size()];
        long acc = 1;
        for (int i = dims.size() - 1; i >= 0; i--) {
            s[i] = acc;
            acc *= dims.get(i);
        }
        return s;
    }

    /** This shape with dimension {@code axis} replaced by {@code size}. */
    public Shape withDim(int axis, int size) {
        int[] a = toArray();
        a[axis] = size;
        return of(a);
    }

    @Override
    public String toString() {
        return dims.toString();
    }
}
