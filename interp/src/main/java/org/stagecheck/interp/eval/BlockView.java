package org.stagecheck.interp.eval;

import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;

/**
 * The value of a buffer that a {@code Load} filled with one block of a DRAM tensor, kept as the
 * place of that block instead of a copy: {@code rows} runs of {@code cols} elements of
 * {@code source}, the first at flat index {@code offset}, each {@code ld} after the previous.
 * The buffer's value is exactly those elements in that order, reshaped to {@code shape} (its
 * declared shape); the source has the buffer's dtype and storage, so nothing is converted.
 *
 * <p>It is the same value as the copy: the run treats {@code source} as shared (copy-on-write),
 * so a later Store to the tensor writes a copy and never changes the elements seen here. A
 * matmul reads a view as its B operand in place ({@link #matrixLd()}); every other reader gets
 * the copy, made once, on its first read ({@link RunState#read}).
 */
record BlockView(Tensor source, int offset, int rows, int cols, int ld, Shape shape) {

    /** The copy of the block, as a fresh tensor of {@code shape}. */
    Tensor materialize(RunState s) {
        Tensor out = s.output(source.dtype(), shape);
        for (int r = 0; r < rows; r++) {
            Copy.copy(source, offset + r * ld, out, r * cols, cols);
        }
        return out;
    }

    /**
     * The leading dimension with which the value, as the rank-2 matrix {@code shape}, lies in
     * {@code source} from {@code offset}: {@code ld} when the shape is the block's
     * {@code [rows, cols]}, the row length when the block is contiguous; -1 when it is neither.
     */
    int matrixLd() {
        if (shape.rank() != 2) {
            return -1;
        }
        if (shape.dim(0) == rows && shape.dim(1) == cols) {
            return ld;
        }
        return rows == 1 || cols == ld ? shape.dim(1) : -1;
    }
}
