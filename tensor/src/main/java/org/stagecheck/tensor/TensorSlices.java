package org.stagecheck.tensor;

import org.stagecheck.spec.ir.Shape;

/** Bit-exact views of a tensor's elements: no value is decoded or rounded, whatever the dtype. */
public final class TensorSlices {
    private TensorSlices() {
    }

    /** Elements {@code [start, end)} along {@code axis} (0 or 1) of a rank-2 tensor, bits copied as they are. */
    public static Tensor slice2d(Tensor t, int axis, int start, int end) {
        Shape s = t.shape();
        if (s.rank() != 2 || axis < 0 || axis > 1 || start < 0 || end <= start || end > s.dim(axis)) {
            throw new IllegalArgumentException("cannot take [" + start + ", " + end + ") along axis " + axis + " of " + s);
        }
        int rows = s.dim(0);
        int cols = s.dim(1);
        int outRows = axis == 0 ? end - start : rows;
        int outCols = axis == 1 ? end - start : cols;
        Tensor out = Tensor.zeros(t.dtype(), Shape.of(outRows, outCols));
        if (axis == 0) {
            Storage.copyBits(t.storage(), start * cols, out.storage(), 0, outRows * cols);
        } else {
            for (int r = 0; r < rows; r++) {
                Storage.copyBits(t.storage(), r * cols + start, out.storage(), r * outCols, outCols);
            }
        }
        return out;
    }

    /** Rank-2 tensors of one dtype joined along {@code axis} (0 or 1), bits copied as they are. */
    public static Tensor concat2d(java.util.List<Tensor> parts, int axis) {
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("nothing to join");
        }
        Tensor first = parts.getFirst();
        int rows = 0;
        int cols = 0;
        for (Tensor p : parts) {
            if (p.shape().rank() != 2 || p.dtype() != first.dtype()
                    || p.shape().dim(1 - axis) != first.shape().dim(1 - axis)) {
                throw new IllegalArgumentException("cannot join " + p.dtype() + p.shape() + " to " + first.dtype() + first.shape()
                        + " along axis " + axis);
            }
            rows = axis == 0 ? rows + p.shape().dim(0) : p.shape().dim(0);
            cols = axis == 1 ? cols + p.shape().dim(1) : p.shape().dim(1);
        }
        if ((long) rows * cols > Tensor.MAX_ELEMENTS) {
            throw new IllegalArgumentException("the joined tensor [" + rows + ", " + cols + "] is over the element limit");
        }
        Tensor out = Tensor.zeros(first.dtype(), Shape.of(rows, cols));
        int at = 0;
        for (Tensor p : parts) {
            int pr = p.shape().dim(0);
            int pc = p.shape().dim(1);
            if (axis == 0) {
                Storage.copyBits(p.storage(), 0, out.storage(), at * cols, pr * pc);
                at += pr;
            } else {
                for (int r = 0; r < pr; r++) {
                    Storage.copyBits(p.storage(), r * pc, out.storage(), r * cols + at, pc);
                }
                at += pc;
            }
        }
        return out;
    }

    /** A rank-1 {@code [n]} tensor as the row {@code [1, n]}, sharing its storage. */
    public static Tensor asRow(Tensor t) {
        if (t.shape().rank() != 1) {
            throw new IllegalArgumentException("only a rank-1 tensor is a row, not " + t.shape());
        }
        return Tensor.wrap(t.dtype(), Shape.of(1, t.shape().dim(0)), t.storage());
    }
}
