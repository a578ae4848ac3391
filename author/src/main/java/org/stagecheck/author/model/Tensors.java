package org.stagecheck.author.model;

import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;

/** Slicing of bound tensors for the split: exact copies of elements, no arithmetic. */
public final class Tensors {
    private Tensors() {
    }

    /** The tensor {@code binding} names, cut out of its logical tensor. */
    public static Tensor bind(Binding binding, Tensor logical) {
        return binding.isWhole() ? logical : slice(logical, binding.axis(), binding.start(), binding.end());
    }

    /** Elements {@code [start, end)} along {@code axis} of a rank-2 f32 or i32 tensor. */
    public static Tensor slice(Tensor t, int axis, int start, int end) {
        Shape s = t.shape();
        if (s.rank() != 2) {
            throw new IllegalArgumentException("only rank-2 tensors are sliced, not " + s);
        }
        int rows = s.dim(0);
        int cols = s.dim(1);
        int outRows = axis == 0 ? end - start : rows;
        int outCols = axis == 1 ? end - start : cols;
        int r0 = axis == 0 ? start : 0;
        int c0 = axis == 1 ? start : 0;
        Shape out = Shape.of(outRows, outCols);
        if (t.dtype() == DType.I32) {
            int[] src = t.toInts();
            int[] dst = new int[outRows * outCols];
            for (int r = 0; r < outRows; r++) {
                System.arraycopy(src, (r + r0) * cols + c0, dst, r * outCols, outCols);
            }
            return Tensor.fromInts(out, dst);
        }
        float[] src = t.toFloats();
        float[] dst = new float[outRows * outCols];
        for (int r = 0; r < outRows; r++) {
            System.arraycopy(src, (r + r0) * cols + c0, dst, r * outCols, outCols);
        }
        return Tensor.fromFloats(t.dtype(), out, dst);
    }
}
