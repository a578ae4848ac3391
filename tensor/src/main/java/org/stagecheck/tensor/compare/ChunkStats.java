package org.stagecheck.tensor.compare;

import org.stagecheck.tensor.Tensor;

/**
 * The statistics of one contiguous chunk of elements, merged in index order so that every
 * figure is the same whatever the number of threads (ties go to the lowest index). Correlation
 * uses per-chunk one-pass moments, shifted by the chunk's first value, merged with Chan's formulas, which stay accurate for data
 * with a large common offset.
 *
 * <p>A chunk's elements are read from windows: {@code count} elements from offset {@code eo} of
 * the expected array, {@code ao} of the actual one and {@code tolOff} of the tolerance, standing
 * for flat indices {@code [base, base + count)}. A window is the tensor itself when it is in
 * memory, or a buffer a range of its file was read into ({@link Scan}); the figures do not depend
 * on which. Elements that differ also go to the heat map's cells, when one is kept. Two f32 arrays
 * take the fast path, {@link F32Chunk}, with the same arithmetic.
 */
final class ChunkStats {
    static final int BUCKETS = 34;

    long mismatches;
    long nonFinite;
    /** The flat indices of this chunk's first failing elements, ascending: {@code listedCount} of at most {@link Comparison#LISTED}. */
    final long[] listed = new long[Comparison.LISTED];
    int listedCount;
    long maxAbsIndex = -1;
    double maxAbs = -1;
    long maxRelIndex = -1;
    double maxRel = -1;
    // the values at the two worst indices, kept so that a streamed comparison need not read them again
    double maxAbsE;
    double maxAbsA;
    double maxRelE;
    double maxRelA;
    long maxUlps;
    final long[] hist = new long[BUCKETS];
    double minAtolAtRtol;
    double derivedScale;
    // correlation over finite pairs
    long n;
    double meanE;
    double meanA;
    double m2E;
    double m2A;
    double cEA;
    // whether every finite value of a side equals its first one
    double firstE;
    double firstA;
    boolean constE = true;
    boolean constA = true;

    static int bucket(long ulps) {
        if (ulps == 0) {
            return 0;
        }
        return Math.min(BUCKETS - 1, 1 + 64 - Long.numberOfLeadingZeros(ulps - 1));
    }

    /** The smallest distance in bucket {@code k}. */
    static long bucketLow(int k) {
        return k <= 1 ? k : (1L << (k - 2)) + 1;
    }

    /** The largest distance in bucket {@code k}. */
    static long bucketHigh(int k) {
        return k == BUCKETS - 1 ? Long.MAX_VALUE : k <= 1 ? k : 1L << (k - 1);
    }

    /** A chunk of any two tensors of one dtype, element by element through doubles; the windows as in {@link F32Chunk#scan}. */
    static ChunkStats generic(Tensor e, int eo, Tensor a, int ao, Tensor tol, int tolOff, int count, long base,
                              FloatFormat f, ElementTest t, CellMap cells) {
        ChunkStats s = new ChunkStats();
        Moments m = new Moments();
        boolean sameStorage = e.isFloat64() == a.isFloat64();
        for (int k = 0; k < count; k++) {
            long i = base + k;
            double ev = e.getDouble(eo + k);
            double av = a.getDouble(ao + k);
            boolean bitEqual = sameStorage ? Double.doubleToRawLongBits(ev) == Double.doubleToRawLongBits(av)
                    : Double.doubleToLongBits(ev) == Double.doubleToLongBits(av);
            if (!Double.isFinite(ev) || !Double.isFinite(av)) {
                if (bitEqual) {
                    s.hist[0]++;
                } else {
                    s.nonFiniteOrBothNaN(i, ev, av, t, cells);
                }
                continue;
            }
            m.add(ev, av);
            if (bitEqual) {
                s.hist[0]++;
                continue;
            }
            long ulps = Math.abs(f.ordinal(av) - f.ordinal(ev));
            s.element(i, ev, av, ulps, tol == null ? Double.NaN : tol.getDouble(tolOff + k), t, cells);
        }
        m.finish(s);
        return s;
    }

    /**
     * One-pass moments of the finite pairs of a chunk, shifted by the chunk's first expected value
     * (so a large common offset does not cancel), and whether each side is constant.
     */
    private static final class Moments {
        long n;
        double shift;
        double sE;
        double sA;
        double sEE;
        double sAA;
        double sEA;
        double firstE;
        double firstA;
        boolean constE = true;
        boolean constA = true;

        void add(double ev, double av) {
            if (n == 0) {
                shift = ev;
                firstE = ev;
                firstA = av;
            }
            n++;
            double de = ev - shift;
            double da = av - shift;
            sE += de;
            sA += da;
            sEE += de * de;
            sAA += da * da;
            sEA += de * da;
            constE &= ev == firstE;
            constA &= av == firstA;
        }

        void finish(ChunkStats s) {
            s.moments(n, shift, sE, sA, sEE, sAA, sEA, firstE, firstA, constE, constA);
        }
    }

    /**
     * Sets the correlation figures from one-pass sums over {@code n} finite pairs shifted by
     * {@code shift}: {@code sE} of e - shift, {@code sEE} of its squares, {@code sEA} of the
     * products, and so on.
     */
    void moments(long n, double shift, double sE, double sA, double sEE, double sAA, double sEA,
                 double firstE, double firstA, boolean constE, boolean constA) {
        this.n = n;
        if (n == 0) {
            return;
        }
        meanE = shift + sE / n;
        meanA = shift + sA / n;
        m2E = Math.max(0, sEE - sE * sE / n);
        m2A = Math.max(0, sAA - sA * sA / n);
        cEA = sEA - sE * sA / n;
        this.firstE = firstE;
        this.firstA = firstA;
        this.constE = constE;
        this.constA = constA;
    }

    /** Two different values of which at least one is not finite. */
    private void nonFiniteOrBothNaN(long i, double ev, double av, ElementTest t, CellMap cells) {
        if (Double.isNaN(ev) && Double.isNaN(av)) {
            // NaN against NaN agrees (payloads aside); only exact asks for the same bits
            hist[0]++;
            if (t.nanPayloadsMatter()) {
                mismatches++;
                list(i);
            }
            if (cells != null) {
                cells.add(i, 0, t.nanPayloadsMatter());
            }
            return;
        }
        mismatches++;
        list(i);
        nonFinite++;
        if (cells != null) {
            cells.add(i, Double.POSITIVE_INFINITY, true);
        }
        if (maxAbs != Double.POSITIVE_INFINITY) {
            maxAbs = Double.POSITIVE_INFINITY;
            maxAbsIndex = i;
            maxAbsE = ev;
            maxAbsA = av;
        }
        if (maxRel != Double.POSITIVE_INFINITY) {
            maxRel = Double.POSITIVE_INFINITY;
            maxRelIndex = i;
            maxRelE = ev;
            maxRelA = av;
        }
    }

    /** Two different finite values. */
    private void element(long i, double ev, double av, long ulps, double tol, ElementTest t, CellMap cells) {
        double d = Math.abs(av - ev);
        double ae = Math.abs(ev);
        hist[bucket(ulps)]++;
        if (ulps > maxUlps) {
            maxUlps = ulps;
        }
        // only derived scales the tolerance; any other policy ignores it (0 * inf would be NaN and fail the element)
        double tolTerm = t.scale() == 0 || Double.isNaN(tol) ? 0 : t.scale() * tol;
        boolean ok = !t.bitExact() && ulps <= t.maxUlps() && d <= t.atol() + t.rtol() * ae + tolTerm;
        if (!ok) {
            mismatches++;
            list(i);
        }
        if (cells != null) {
            cells.add(i, d, !ok);
        }
        if (d > maxAbs) {
            maxAbs = d;
            maxAbsIndex = i;
            maxAbsE = ev;
            maxAbsA = av;
        }
        // the minimal figures are rounded up (PassingFigures) and only computed where the current
        // one does not already pass this element: a maximum that passes every element it skipped
        if (d > maxRel * ae || (ae == 0 && maxRel != Double.POSITIVE_INFINITY)) {
            double rel = d == 0 ? 0 : PassingFigures.rtol(d, ae);
            if (rel > maxRel) {
                maxRel = rel;
                maxRelIndex = i;
                maxRelE = ev;
                maxRelA = av;
            }
        }
        double atolNeeded = PassingFigures.atol(d, t.rtolForMinimal() * ae);
        if (atolNeeded > minAtolAtRtol) {
            minAtolAtRtol = atolNeeded;
        }
        // a NaN tolerance (or none given: the figure is then not reported) judges the element exactly
        if (d > 0 && !(d <= derivedScale * tol)) {
            double scale = PassingFigures.derivedScale(d, tol);
            if (scale > derivedScale) {
                derivedScale = scale;
            }
        }
    }

    /** Lists failing element {@code i} (met in ascending order) while fewer than {@link Comparison#LISTED} are. */
    void list(long i) {
        if (listedCount < listed.length) {
            listed[listedCount++] = i;
        }
    }

    /** Adds {@code o}, the chunk just after this one. */
    void merge(ChunkStats o) {
        for (int k = 0; k < o.listedCount; k++) {
            list(o.listed[k]);
        }
        mismatches += o.mismatches;
        nonFinite += o.nonFinite;
        if (o.maxAbs > maxAbs) {
            maxAbs = o.maxAbs;
            maxAbsIndex = o.maxAbsIndex;
            maxAbsE = o.maxAbsE;
            maxAbsA = o.maxAbsA;
        }
        if (o.maxRel > maxRel) {
            maxRel = o.maxRel;
            maxRelIndex = o.maxRelIndex;
            maxRelE = o.maxRelE;
            maxRelA = o.maxRelA;
        }
        maxUlps = Math.max(maxUlps, o.maxUlps);
        for (int k = 0; k < BUCKETS; k++) {
            hist[k] += o.hist[k];
        }
        minAtolAtRtol = Math.max(minAtolAtRtol, o.minAtolAtRtol);
        derivedScale = Math.max(derivedScale, o.derivedScale);
        if (o.n == 0) {
            return;
        }
        if (n == 0) {
            firstE = o.firstE;
            firstA = o.firstA;
            constE = o.constE;
            constA = o.constA;
            n = o.n;
            meanE = o.meanE;
            meanA = o.meanA;
            m2E = o.m2E;
            m2A = o.m2A;
            cEA = o.cEA;
            return;
        }
        constE &= o.constE && o.firstE == firstE;
        constA &= o.constA && o.firstA == firstA;
        long total = n + o.n;
        double dE = o.meanE - meanE;
        double dA = o.meanA - meanA;
        double w = (double) n * o.n / total;
        m2E += o.m2E + dE * dE * w;
        m2A += o.m2A + dA * dA * w;
        cEA += o.cEA + dE * dA * w;
        meanE += dE * o.n / total;
        meanA += dA * o.n / total;
        n = total;
    }

    /** Whether either side's finite values are all equal (correlation undefined). */
    boolean constant() {
        return n == 0 || constE || constA;
    }

    double pcc() {
        if (constant() || m2E <= 0 || m2A <= 0) {
            return Double.NaN;
        }
        return Math.max(-1, Math.min(1, cEA / Math.sqrt(m2E * m2A)));
    }
}
