package org.stagecheck.golden.compare;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;

/**
 * Compares an actual tensor with its expected value under a {@link Policy} and returns every
 * statistic at once (docs/golden.md, "Comparison"). One pass over the data (two over each
 * cache-sized chunk, for the correlation), split over the common fork-join pool by chunks whose
 * results are merged in index order: the figures do not depend on the number of threads.
 *
 * <p>Typical use:
 * <pre>{@code
 * Comparison c = Comparator.compare(expected, actual, new Policy.AllClose(1e-5, 1e-6));
 * if (!c.passed()) System.out.println(c.summary());
 * }</pre>
 */
public final class Comparator {
    /** Elements per chunk: both sides of a chunk stay in cache for the correlation's second pass. */
    static final int CHUNK = 1 << 15;

    private Comparator() {
    }

    /**
     * {@code actual} against {@code expected} under {@code policy}. A {@link Policy.Derived}
     * policy needs its per-element tolerance: use {@link #compare(Tensor, Tensor, Policy, Tensor)}
     * (here it fails with a problem saying so).
     */
    public static Comparison compare(Tensor expected, Tensor actual, Policy policy) {
        return compare(expected, actual, policy, null);
    }

    /**
     * {@code actual} against {@code expected} under {@code policy}, with {@code tolerance} (of the
     * expected shape, any dtype; nullable) the per-element tolerance of a {@link Policy.Derived}
     * policy. When given, the minimal derived scale is reported whatever the policy.
     */
    public static Comparison compare(Tensor expected, Tensor actual, Policy policy, Tensor tolerance) {
        FloatFormat format = FloatFormat.of(expected.dtype());
        Policy resolved = policy.resolve(expected.dtype());
        Shape shape = expected.shape();
        if (actual.dtype() != expected.dtype()) {
            return refused(resolved, expected, "dtype differs: expected " + expected.dtype() + ", actual " + actual.dtype());
        }
        if (!actual.shape().equals(shape)) {
            return refused(resolved, expected, "shape differs: expected " + shape + ", actual " + actual.shape());
        }
        if (tolerance != null && tolerance.size() != expected.size()) {
            return refused(resolved, expected, "the derived tolerance has " + tolerance.size() + " elements, the output " + expected.size());
        }
        if (resolved instanceof Policy.Derived && tolerance == null) {
            return refused(resolved, expected, "the derived policy needs the per-element tolerance computed from the program, and none was given");
        }
        ElementTest test = ElementTest.of(resolved, format);
        ChunkStats s = scan(expected, actual, tolerance, format, test);
        return build(resolved, expected, actual, tolerance, format, test, s);
    }

    private static ChunkStats scan(Tensor e, Tensor a, Tensor tol, FloatFormat f, ElementTest t) {
        int n = Math.toIntExact(e.size());
        int chunks = (n + CHUNK - 1) / CHUNK;
        ChunkStats[] parts = new ChunkStats[chunks];
        float[] ef = e.rawFloats();
        float[] af = a.rawFloats();
        double[] tolD = tol == null ? null : tol.isFloat64() ? tol.rawDoubles() : null;
        float[] tolF = tol == null ? null : tol.rawFloats();
        boolean fast = ef != null && af != null && (tol == null || tolD != null || tolF != null);
        IntStream work = IntStream.range(0, chunks);
        (chunks > 4 ? work.parallel() : work).forEach(c -> {
            int from = c * CHUNK;
            int to = Math.min(n, from + CHUNK);
            parts[c] = fast ? ChunkStats.f32(ef, af, tolD, tolF, t, from, to) : ChunkStats.generic(e, a, tol, f, t, from, to);
        });
        ChunkStats total = new ChunkStats();
        for (ChunkStats p : parts) {
            total.merge(p);
        }
        return total;
    }

    private static Comparison build(Policy policy, Tensor e, Tensor a, Tensor tol, FloatFormat f, ElementTest t, ChunkStats s) {
        long n = e.size();
        double pcc = s.pcc();
        String problem = null;
        boolean passed = s.mismatches == 0;
        if (s.nonFinite > 0) {
            problem = s.nonFinite + " element(s) disagree on NaN/Inf";
            passed = false;
        } else if (policy instanceof Policy.Pcc p) {
            if (n == 0) {
                problem = "correlation is undefined on an empty tensor";
                passed = false;
            } else if (Double.isNaN(pcc)) {
                problem = "correlation is undefined (one side is constant); judged by " + Policy.AllClose.defaults(e.dtype()).spelling() + " instead";
                passed = s.mismatches == 0;
            } else {
                passed = pcc >= p.min();
            }
        }
        List<Comparison.UlpBucket> hist = new ArrayList<>();
        for (int k = 0; k < ChunkStats.BUCKETS; k++) {
            if (s.hist[k] > 0) {
                hist.add(new Comparison.UlpBucket(ChunkStats.bucketLow(k), ChunkStats.bucketHigh(k), s.hist[k]));
            }
        }
        boolean none = s.nonFinite > 0;
        double inf = Double.POSITIVE_INFINITY;
        Comparison.Minimal minimal = new Comparison.Minimal(
                none ? Long.MAX_VALUE : s.maxUlps,
                none ? inf : Math.max(0, s.maxAbs),
                none ? inf : Math.max(0, s.maxRel),
                none ? inf : Math.max(0, s.minAtolAtRtol),
                t.rtolForMinimal(),
                none ? Double.NaN : pcc,
                tol == null ? Double.NaN : none ? inf : s.derivedScale);
        return new Comparison(policy, passed, problem, e.dtype(), e.shape(), n, s.mismatches, s.nonFinite,
                worst(e, a, f, s.maxAbsIndex), worst(e, a, f, s.maxRelIndex), hist, pcc, minimal);
    }

    private static Comparison.Worst worst(Tensor e, Tensor a, FloatFormat f, long i) {
        if (i < 0) {
            return null;
        }
        double ev = e.getDouble(i);
        double av = a.getDouble(i);
        boolean finite = Double.isFinite(ev) && Double.isFinite(av);
        double d = finite ? Math.abs(av - ev) : Double.POSITIVE_INFINITY;
        double rel = ev == 0 ? (d == 0 ? 0 : Double.POSITIVE_INFINITY) : d / Math.abs(ev);
        long ulps = finite ? Math.abs(f.ordinal(av) - f.ordinal(ev)) : Long.MAX_VALUE;
        return new Comparison.Worst(i, multiIndex(e.shape(), i), ev, av, d, rel, ulps);
    }

    /** The row-major multi-index of flat index {@code i} in {@code shape}. */
    public static List<Long> multiIndex(Shape shape, long i) {
        long[] idx = new long[shape.rank()];
        long rest = i;
        for (int ax = shape.rank() - 1; ax >= 0; ax--) {
            int d = shape.dim(ax);
            idx[ax] = d == 0 ? 0 : rest % d;
            rest = d == 0 ? 0 : rest / d;
        }
        List<Long> out = new ArrayList<>(idx.length);
        for (long v : idx) {
            out.add(v);
        }
        return out;
    }

    private static Comparison refused(Policy policy, Tensor e, String problem) {
        FloatFormat f = FloatFormat.of(e.dtype());
        double inf = Double.POSITIVE_INFINITY;
        return new Comparison(policy, false, problem, e.dtype(), e.shape(), 0, e.size(), 0, null, null, List.of(), Double.NaN,
                new Comparison.Minimal(Long.MAX_VALUE, inf, inf, inf, f.defaultRtol(), Double.NaN, Double.NaN));
    }
}
