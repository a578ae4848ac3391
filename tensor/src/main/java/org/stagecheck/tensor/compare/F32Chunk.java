package org.stagecheck.tensor.compare;

/**
 * The statistics of a chunk of two f32 arrays, the fast path of {@link ChunkStats}: the same
 * arithmetic in the same order as {@link ChunkStats#generic} (so the same figures, bit for bit;
 * {@code StreamedComparisonTest} compares the two, and a change to one is a change to both),
 * with every running figure a local variable rather than a field, so that the loop keeps them in
 * registers instead of storing and reloading them at every element. Written into a
 * {@link ChunkStats} once, at the end.
 */
final class F32Chunk {
    private static final int EXPONENT = 0x7f800000;
    private static final double INF = Double.POSITIVE_INFINITY;

    private F32Chunk() {
    }

    /**
     * {@code count} elements from {@code e[eo]} and {@code a[ao]}, the tolerance from
     * {@code tol[tolOff]} (double) or {@code tolF[tolOff]} (float) or none, standing for flat
     * indices from {@code base}; differing elements go to {@code cells} (nullable).
     */
    static ChunkStats scan(float[] e, int eo, float[] a, int ao, double[] tol, float[] tolF, int tolOff, int count, long base,
                           ElementTest t, CellMap cells) {
        final boolean bitExact = t.bitExact();
        final boolean nanPayloadsMatter = t.nanPayloadsMatter();
        final long ulpLimit = t.maxUlps();
        final double atol = t.atol();
        final double rtol = t.rtol();
        final double scale = t.scale();
        final double rtolMin = t.rtolForMinimal();
        ChunkStats s = new ChunkStats();
        // four histograms, element k counted in histogram k % 4: consecutive elements of one ULP
        // distance (the common case) then increment four counters in turn, not one counter that
        // every increment must wait for
        final long[] hist4 = new long[4 * ChunkStats.BUCKETS];
        // The heat map's position of the differing element seen last (its column, the cell it is
        // in and where that cell's columns end), moved on from one differing element to the next
        // without a division while they stay in a row, and the largest error and verdict of the
        // differing elements of that cell so far, added to the map when the cell changes: the
        // map's arrays are touched once per cell, not once per element.
        final int[] colStart = cells == null ? null : cells.colStart();
        final int srcCols = cells == null ? 0 : cells.layout().srcCols();
        int lastK = 0;
        int col = 0;
        int colCell = 0;
        int colEnd = 0;
        int rowCell = 0;
        double cellError = 0;
        boolean cellFails = false;
        if (cells != null) {
            long r = base / srcCols;
            col = (int) (base - r * srcCols);
            rowCell = cells.rowCell(r);
            colCell = cells.colCell(col);
            colEnd = colStart[colCell + 1];
        }
        long equal = 0;
        long mismatches = 0;
        long nonFinite = 0;
        long maxUlps = 0;
        long maxAbsIndex = -1;
        double maxAbs = -1;
        double maxAbsE = 0;
        double maxAbsA = 0;
        long maxRelIndex = -1;
        double maxRel = -1;
        double maxRelE = 0;
        double maxRelA = 0;
        double minAtolAtRtol = 0;
        double derivedScale = 0;
        // one-pass moments of the finite pairs, shifted by the first finite expected value
        long n = 0;
        double shift = 0;
        double sE = 0;
        double sA = 0;
        double sEE = 0;
        double sAA = 0;
        double sEA = 0;
        double firstE = 0;
        double firstA = 0;
        boolean constE = true;
        boolean constA = true;
        for (int k = 0; k < count; k++) {
            float evf = e[eo + k];
            float avf = a[ao + k];
            int eb = Float.floatToRawIntBits(evf);
            int ab = Float.floatToRawIntBits(avf);
            double ev = evf;
            double av = avf;
            double d;
            boolean fails;
            if ((eb & EXPONENT) == EXPONENT || (ab & EXPONENT) == EXPONENT) {
                if (eb == ab) {
                    equal++;
                    continue;
                }
                long i = base + k;
                if (ev != ev && av != av) {
                    // NaN against NaN agrees (payloads aside); only exact asks for the same bits
                    equal++;
                    if (nanPayloadsMatter) {
                        mismatches++;
                        s.list(i);
                    }
                    d = 0;
                    fails = nanPayloadsMatter;
                } else {
                    mismatches++;
                    s.list(i);
                    nonFinite++;
                    d = INF;
                    fails = true;
                    if (maxAbs != INF) {
                        maxAbs = INF;
                        maxAbsIndex = i;
                        maxAbsE = ev;
                        maxAbsA = av;
                    }
                    if (maxRel != INF) {
                        maxRel = INF;
                        maxRelIndex = i;
                        maxRelE = ev;
                        maxRelA = av;
                    }
                }
            } else {
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
                if (eb == ab) {
                    equal++;
                    continue;
                }
                // two different finite values
                long i = base + k;
                long ulps = Math.abs(FloatFormat.ordinalF32(ab) - FloatFormat.ordinalF32(eb));
                double tv = tol != null ? tol[tolOff + k] : tolF != null ? tolF[tolOff + k] : Double.NaN;
                d = Math.abs(av - ev);
                double ae = Math.abs(ev);
                hist4[((k & 3) * ChunkStats.BUCKETS) + ChunkStats.bucket(ulps)]++;
                if (ulps > maxUlps) {
                    maxUlps = ulps;
                }
                // only derived scales the tolerance; any other policy ignores it (0 * inf would be NaN and fail the element)
                double tolTerm = scale == 0 || Double.isNaN(tv) ? 0 : scale * tv;
                fails = bitExact || ulps > ulpLimit || !(d <= atol + rtol * ae + tolTerm);
                if (fails) {
                    mismatches++;
                    s.list(i);
                }
                if (d > maxAbs) {
                    maxAbs = d;
                    maxAbsIndex = i;
                    maxAbsE = ev;
                    maxAbsA = av;
                }
                // the minimal figures are rounded up (PassingFigures) and only computed where the current
                // one does not already pass this element: a maximum that passes every element it skipped
                if (d > maxRel * ae || (ae == 0 && maxRel != INF)) {
                    double rel = d == 0 ? 0 : PassingFigures.rtol(d, ae);
                    if (rel > maxRel) {
                        maxRel = rel;
                        maxRelIndex = i;
                        maxRelE = ev;
                        maxRelA = av;
                    }
                }
                double atolNeeded = PassingFigures.atol(d, rtolMin * ae);
                if (atolNeeded > minAtolAtRtol) {
                    minAtolAtRtol = atolNeeded;
                }
                // a NaN tolerance (or none given: the figure is then not reported) judges the element exactly
                if (d > 0 && !(d <= derivedScale * tv)) {
                    double sc = PassingFigures.derivedScale(d, tv);
                    if (sc > derivedScale) {
                        derivedScale = sc;
                    }
                }
            }
            // a differing element, with error d, failing or not: into the heat map's cell
            if (cells != null) {
                col += k - lastK;
                lastK = k;
                if (col >= colEnd) {
                    cells.add(rowCell + colCell, cellError, cellFails);
                    cellError = 0;
                    cellFails = false;
                    if (col < srcCols && col < colStart[colCell + 2]) {
                        colCell++;   // the next cell of the same row
                    } else {
                        long i = base + k;
                        long r = i / srcCols;
                        col = (int) (i - r * srcCols);
                        rowCell = cells.rowCell(r);
                        colCell = cells.colCell(col);
                    }
                    colEnd = colStart[colCell + 1];
                }
                if (d > cellError) {
                    cellError = d;   // as Math.max: d is never NaN nor -0
                }
                cellFails |= fails;
            }
        }
        if (cells != null) {
            cells.add(rowCell + colCell, cellError, cellFails);
        }
        for (int h = 0; h < 4 * ChunkStats.BUCKETS; h++) {
            s.hist[h % ChunkStats.BUCKETS] += hist4[h];
        }
        s.hist[0] += equal;
        s.mismatches = mismatches;
        s.nonFinite = nonFinite;
        s.maxUlps = maxUlps;
        s.maxAbsIndex = maxAbsIndex;
        s.maxAbs = maxAbs;
        s.maxAbsE = maxAbsE;
        s.maxAbsA = maxAbsA;
        s.maxRelIndex = maxRelIndex;
        s.maxRel = maxRel;
        s.maxRelE = maxRelE;
        s.maxRelA = maxRelA;
        s.minAtolAtRtol = minAtolAtRtol;
        s.derivedScale = derivedScale;
        s.moments(n, shift, sE, sA, sEE, sAA, sEA, firstE, firstA, constE, constA);
        return s;
    }
}
