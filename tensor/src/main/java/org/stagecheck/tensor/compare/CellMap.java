package org.stagecheck.tensor.compare;

import org.stagecheck.spec.ir.Shape;

/**
 * The cells of an {@link ErrorMap}, filled during the comparison's pass instead of by a second
 * pass over the tensors: only elements that differ are added (an equal element leaves its cell's
 * error at 0 and its verdict a pass, which is where a cell starts). Each worker of the pass fills
 * its own, and the merge takes maxima and disjunctions, so the map does not depend on which
 * worker saw which element. Its size is bounded by the map's side, not by the tensor's.
 */
final class CellMap {
    /**
     * How flat indices fall into cells: the tensor seen as [{@code srcRows}, {@code srcCols}]
     * (product of the leading axes, last axis) pooled into [{@code rows}, {@code cols}], as
     * {@link ErrorMap#of} does.
     */
    record Layout(int rows, int cols, int srcRows, int srcCols) {
        /** The layout of {@code shape} at most {@code maxSide} cells a side; null for rank below 2, no elements or no map asked for. */
        static Layout of(Shape shape, int maxSide) {
            if (maxSide < 1 || shape.rank() < 2 || shape.elementCount() == 0) {
                return null;
            }
            int srcCols = shape.dim(shape.rank() - 1);
            int srcRows = Math.toIntExact(shape.elementCount() / srcCols);
            return new Layout(Math.min(srcRows, maxSide), Math.min(srcCols, maxSide), srcRows, srcCols);
        }
    }

    private final Layout layout;
    private final double[] error;
    private final boolean[] mismatch;
    /** colStart[j]: the first column of cell column j, ceil(j * srcCols / cols); colStart[cols] = srcCols. */
    private final int[] colStart;

    CellMap(Layout layout) {
        this.layout = layout;
        this.error = new double[layout.rows() * layout.cols()];
        this.mismatch = new boolean[error.length];
        this.colStart = new int[layout.cols() + 1];
        for (int j = 0; j <= layout.cols(); j++) {
            colStart[j] = (int) (((long) j * layout.srcCols() + layout.cols() - 1) / layout.cols());
        }
    }

    Layout layout() {
        return layout;
    }

    /** The first column of each cell column, and the number of columns after the last (read-only). */
    int[] colStart() {
        return colStart;
    }

    /** The index of the first cell of the cell row that source row {@code r} falls in. */
    int rowCell(long r) {
        return (int) (r * layout.rows() / layout.srcRows()) * layout.cols();
    }

    /** The cell column that source column {@code c} falls in. */
    int colCell(int c) {
        return (int) ((long) c * layout.cols() / layout.srcCols());
    }

    /** Element {@code i}, with error {@code d} (infinite for a non-finite disagreement), failing the policy or not. */
    void add(long i, double d, boolean fails) {
        long r = i / layout.srcCols();
        add(rowCell(r) + colCell((int) (i - r * layout.srcCols())), d, fails);
    }

    /** Cell {@code k} holds an element with error {@code d}, failing the policy or not. */
    void add(int k, double d, boolean fails) {
        error[k] = Math.max(error[k], d);
        mismatch[k] |= fails;
    }

    /** Adds another worker's cells. */
    void merge(CellMap o) {
        for (int k = 0; k < error.length; k++) {
            error[k] = Math.max(error[k], o.error[k]);
            mismatch[k] |= o.mismatch[k];
        }
    }

    ErrorMap toErrorMap() {
        return new ErrorMap(layout.rows(), layout.cols(), layout.srcRows(), layout.srcCols(), error.clone(), mismatch.clone());
    }
}
