package org.stagecheck.golden.compare;

import org.stagecheck.tensor.Tensor;

/**
 * The statistics of one contiguous chunk of elements, merged in index order so that every
 * figure is the same whatever the number of threads (ties go to the lowest index). Correlation
 * uses per-chunk two-pass moments merged with Chan's formulas, which stay accurate for data
 * with a large common offset.
 */
final class ChunkStats {
    static final int BUCKETS = 34;

    long mismatches;
    long nonFinite;
    long maxAbsIndex = -1;
    double maxAbs = -1;
    long maxRelIndex = -1;
    double maxRel = -1;
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
    double minE = Double.POSITIVE_INFINITY;
    double maxE = Double.NEGATIVE_INFINITY;
    double minA = Double.POSITIVE_INFINITY;
    double maxA = Double.NEGATIVE_INFINITY;

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

    /** Chunk [from, to) of two f32 tensors held as float[] (the fast path); the tolerance as double[] or float[] or neither. */
    static ChunkStats f32(float[] e, float[] a, double[] tol, float[] tolF, ElementTest t, int from, int to) {
        ChunkStats s = new ChunkStats();
        double sumE = 0;
        double sumA = 0;
        for (int i = from; i < to; i++) {
            float ev = e[i];
            float av = a[i];
            int eb = Float.floatToRawIntBits(ev);
            int ab = Float.floatToRawIntBits(av);
            if (eb == ab) {
                s.hist[0]++;
                if (Float.isFinite(ev)) {
                    s.n++;
                    sumE += ev;
                    sumA += av;
                    s.range(ev, av);
                }
                continue;
            }
            if (!Float.isFinite(ev) || !Float.isFinite(av)) {
                s.nonFiniteOrBothNaN(i, ev, av, t);
                continue;
            }
            s.n++;
            sumE += ev;
            sumA += av;
            s.range(ev, av);
            long ulps = Math.abs(FloatFormat.ordinalF32(ab) - FloatFormat.ordinalF32(eb));
            s.element(i, ev, av, ulps, tol != null ? tol[i] : tolF != null ? tolF[i] : Double.NaN, t);
        }
        s.finishMeans(sumE, sumA);
        if (s.n > 0) {
            double mE = s.meanE;
            double mA = s.meanA;
            double m2E = 0;
            double m2A = 0;
            double c = 0;
            for (int i = from; i < to; i++) {
                float ev = e[i];
                float av = a[i];
                if (Float.isFinite(ev) && Float.isFinite(av)) {
                    double de = ev - mE;
                    double da = av - mA;
                    m2E += de * de;
                    m2A += da * da;
                    c += de * da;
                }
            }
            s.m2E = m2E;
            s.m2A = m2A;
            s.cEA = c;
        }
        return s;
    }

    /** Chunk [from, to) of any two tensors of one dtype, element by element through doubles. */
    static ChunkStats generic(Tensor e, Tensor a, Tensor tol, FloatFormat f, ElementTest t, int from, int to) {
        ChunkStats s = new ChunkStats();
        double sumE = 0;
        double sumA = 0;
        boolean sameStorage = e.isFloat64() == a.isFloat64();
        for (int i = from; i < to; i++) {
            double ev = e.getDouble(i);
            double av = a.getDouble(i);
            boolean bitEqual = sameStorage ? Double.doubleToRawLongBits(ev) == Double.doubleToRawLongBits(av)
                    : Double.doubleToLongBits(ev) == Double.doubleToLongBits(av);
            if (bitEqual) {
                s.hist[0]++;
                if (Double.isFinite(ev)) {
                    s.n++;
                    sumE += ev;
                    sumA += av;
                    s.range(ev, av);
                }
                continue;
            }
            if (!Double.isFinite(ev) || !Double.isFinite(av)) {
                s.nonFiniteOrBothNaN(i, ev, av, t);
                continue;
            }
            s.n++;
            sumE += ev;
            sumA += av;
            s.range(ev, av);
            long ulps = Math.abs(f.ordinal(av) - f.ordinal(ev));
            s.element(i, ev, av, ulps, tol == null ? Double.NaN : tol.getDouble(i), t);
        }
        s.finishMeans(sumE, sumA);
        if (s.n > 0) {
            for (int i = from; i < to; i++) {
                double ev = e.getDouble(i);
                double av = a.getDouble(i);
                if (Double.isFinite(ev) && Double.isFinite(av)) {
                    double de = ev - s.meanE;
                    double da = av - s.meanA;
                    s.m2E += de * de;
                    s.m2A += da * da;
                    s.cEA += de * da;
                }
            }
        }
        return s;
    }

    private void finishMeans(double sumE, double sumA) {
        if (n > 0) {
            meanE = sumE / n;
            meanA = sumA / n;
        }
    }

    private void range(double ev, double av) {
        minE = Math.min(minE, ev);
        maxE = Math.max(maxE, ev);
        minA = Math.min(minA, av);
        maxA = Math.max(maxA, av);
    }

    /** Two different values of which at least one is not finite. */
    private void nonFiniteOrBothNaN(long i, double ev, double av, ElementTest t) {
        if (Double.isNaN(ev) && Double.isNaN(av)) {
            // NaN against NaN agrees (payloads aside); only exact asks for the same bits
            hist[0]++;
            if (t.bitExact()) {
                mismatches++;
            }
            return;
        }
        mismatches++;
        nonFinite++;
        if (maxAbs != Double.POSITIVE_INFINITY) {
            maxAbs = Double.POSITIVE_INFINITY;
            maxAbsIndex = i;
        }
        if (maxRel != Double.POSITIVE_INFINITY) {
            maxRel = Double.POSITIVE_INFINITY;
            maxRelIndex = i;
        }
    }

    /** Two different finite values. */
    private void element(long i, double ev, double av, long ulps, double tol, ElementTest t) {
        double d = Math.abs(av - ev);
        double ae = Math.abs(ev);
        hist[bucket(ulps)]++;
        if (ulps > maxUlps) {
            maxUlps = ulps;
        }
        double tolTerm = Double.isNaN(tol) ? 0 : t.scale() * tol;
        boolean ok = !t.bitExact() && ulps <= t.maxUlps() && d <= t.atol() + t.rtol() * ae + tolTerm;
        if (!ok) {
            mismatches++;
        }
        if (d > maxAbs) {
            maxAbs = d;
            maxAbsIndex = i;
        }
        double rel = ae == 0 ? Double.POSITIVE_INFINITY : d / ae;
        if (rel > maxRel) {
            maxRel = rel;
            maxRelIndex = i;
        }
        double atolNeeded = d - t.rtolForMinimal() * ae;
        if (atolNeeded > minAtolAtRtol) {
            minAtolAtRtol = atolNeeded;
        }
        double scale = tol > 0 ? d / tol : Double.POSITIVE_INFINITY;
        if (!Double.isNaN(tol) && scale > derivedScale) {
            derivedScale = scale;
        }
    }

    /** Adds {@code o}, the chunk just after this one. */
    void merge(ChunkStats o) {
        mismatches += o.mismatches;
        nonFinite += o.nonFinite;
        if (o.maxAbs > maxAbs) {
            maxAbs = o.maxAbs;
            maxAbsIndex = o.maxAbsIndex;
        }
        if (o.maxRel > maxRel) {
            maxRel = o.maxRel;
            maxRelIndex = o.maxRelIndex;
        }
        maxUlps = Math.max(maxUlps, o.maxUlps);
        for (int k = 0; k < BUCKETS; k++) {
            hist[k] += o.hist[k];
        }
        minAtolAtRtol = Math.max(minAtolAtRtol, o.minAtolAtRtol);
        derivedScale = Math.max(derivedScale, o.derivedScale);
        minE = Math.min(minE, o.minE);
        maxE = Math.max(maxE, o.maxE);
        minA = Math.min(minA, o.minA);
        maxA = Math.max(maxA, o.maxA);
        if (o.n == 0) {
            return;
        }
        if (n == 0) {
            n = o.n;
            meanE = o.meanE;
            meanA = o.meanA;
            m2E = o.m2E;
            m2A = o.m2A;
            cEA = o.cEA;
            return;
        }
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
        return n == 0 || minE == maxE || minA == maxA;
    }

    double pcc() {
        if (constant() || m2E <= 0 || m2A <= 0) {
            return Double.NaN;
        }
        return Math.max(-1, Math.min(1, cEA / Math.sqrt(m2E * m2A)));
    }
}
