package org.stagecheck.tensor.compare;

import org.stagecheck.tensor.Tensor;

/**
 * The error of an output laid out as a matrix for a heat map: a tensor of rank 2 or more is
 * seen as [product of the leading axes, last axis], pooled by maximum into at most
 * {@code maxSide x maxSide} cells. Each cell holds the largest |actual - expected| of its
 * elements (infinite for a non-finite disagreement) and whether any of them fails the policy.
 *
 * @param rows, cols       the cells
 * @param srcRows, srcCols the matrix the tensor was seen as
 */
public record ErrorMap(int rows, int cols, int srcRows, int srcCols, double[] error, boolean[] mismatch) {

    /** The map of {@code actual} against {@code expected}, or null for a tensor of rank below 2 or shapes that differ. */
    public static ErrorMap of(Tensor expected, Tensor actual, Policy policy, Tensor tolerance, int maxSide) {
        if (expected.shape().rank() < 2 || !expected.shape().equals(actual.shape()) || expected.dtype() != actual.dtype() || expected.size() == 0) {
            return null;
        }
        FloatFormat f = FloatFormat.of(expected.dtype());
        ElementTest t = ElementTest.of(policy.resolve(expected.dtype()), f);
        int srcCols = expected.shape().dim(expected.shape().rank() - 1);
        int srcRows = Math.toIntExact(expected.size() / srcCols);
        int rows = Math.min(srcRows, maxSide);
        int cols = Math.min(srcCols, maxSide);
        double[] err = new double[rows * cols];
        boolean[] bad = new boolean[rows * cols];
        for (int r = 0; r < srcRows; r++) {
            int cr = (int) ((long) r * rows / srcRows);
            for (int c = 0; c < srcCols; c++) {
                int cc = (int) ((long) c * cols / srcCols);
                long i = (long) r * srcCols + c;
                double e = expected.getDouble(i);
                double a = actual.getDouble(i);
                double tol = tolerance == null ? Double.NaN : tolerance.getDouble(i);
                double d;
                boolean ok;
                if (Double.doubleToRawLongBits(e) == Double.doubleToRawLongBits(a)) {
                    d = 0;
                    ok = true;
                } else if (!Double.isFinite(e) || !Double.isFinite(a)) {
                    boolean bothNaN = Double.isNaN(e) && Double.isNaN(a);
                    d = bothNaN ? 0 : Double.POSITIVE_INFINITY;
                    ok = bothNaN && !t.bitExact();
                } else {
                    d = Math.abs(a - e);
                    long ulps = Math.abs(f.ordinal(a) - f.ordinal(e));
                    // as the comparison's element test: only derived scales the tolerance
                    double tolTerm = t.scale() == 0 || Double.isNaN(tol) ? 0 : t.scale() * tol;
                    ok = !t.bitExact() && ulps <= t.maxUlps() && d <= t.atol() + t.rtol() * Math.abs(e) + tolTerm;
                }
                int k = cr * cols + cc;
                err[k] = Math.max(err[k], d);
                bad[k] |= !ok;
            }
        }
        return new ErrorMap(rows, cols, srcRows, srcCols, err, bad);
    }
}
