package org.stagecheck.tensor.compare;

import java.util.ArrayList;
import java.util.List;

import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.TensorFileException;

/**
 * Compares an actual tensor with its expected value under a {@link Policy} and returns every
 * statistic at once (docs/golden.md, "Comparison"). One pass over the data, split over the common
 * fork-join pool by chunks whose results are merged in index order: the figures do not depend on
 * the number of threads. Operands in .npy files are read range by range during the pass
 * ({@link #compare(Operand, Operand, Policy, Operand, int)}), never whole, so comparing files
 * needs memory for read buffers only; the figures are the same as for the tensors in memory.
 *
 * <p>Typical use:
 * <pre>{@code
 * Comparison c = Comparator.compare(expected, actual, new Policy.AllClose(1e-5, 1e-6));
 * if (!c.passed()) System.out.println(c.summary());
 * }</pre>
 */
public final class Comparator {
    /** Elements per chunk: the unit whose statistics are merged in index order (the figures depend on it, not on threads). */
    static final int CHUNK = 1 << 15;

    /** A comparison and its heat-map data (null for an output of rank below 2, when none was asked for, or when refused). */
    public record Compared(Comparison comparison, ErrorMap errorMap) {}

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
        try {
            return compare(Operand.of(expected), Operand.of(actual), policy, tolerance == null ? null : Operand.of(tolerance), 0).comparison();
        } catch (TensorFileException e) {
            throw new IllegalStateException("tensors in memory read no file", e);
        }
    }

    /**
     * {@code actual} against {@code expected} under {@code policy}, with {@code tolerance} as in
     * {@link #compare(Tensor, Tensor, Policy, Tensor)}, wherever each lies: operands in .npy files
     * are read in ranges during the one pass. With {@code heatMapSide} at least 1, also the
     * {@link ErrorMap} of at most that many cells a side, filled in the same pass (the map
     * {@link ErrorMap#of} makes of the same tensors).
     *
     * @throws TensorFileException when an operand's file cannot be read or changed since its header was read
     */
    public static Compared compare(Operand expected, Operand actual, Policy policy, Operand tolerance, int heatMapSide)
            throws TensorFileException {
        return compare(expected, actual, policy, tolerance, heatMapSide, Scan.GROUP_CHUNKS);
    }

    /** As {@link #compare(Operand, Operand, Policy, Operand, int)}, reading {@code groupChunks} chunks at a time (tests vary it: the figures must not). */
    static Compared compare(Operand expected, Operand actual, Policy policy, Operand tolerance, int heatMapSide, int groupChunks)
            throws TensorFileException {
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
        Scan.Result r = Scan.run(expected, actual, tolerance, format, test, CellMap.Layout.of(shape, heatMapSide), groupChunks);
        return new Compared(build(resolved, expected, tolerance != null, format, test, r.total()),
                r.cells() == null ? null : r.cells().toErrorMap());
    }

    private static Comparison build(Policy policy, Operand e, boolean withTolerance, FloatFormat f, ElementTest t, ChunkStats s) {
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
                withTolerance ? none ? inf : s.derivedScale : Double.NaN);
        return new Comparison(policy, passed, problem, e.dtype(), e.shape(), n, s.mismatches, s.nonFinite,
                worst(e.shape(), f, s.maxAbsIndex, s.maxAbsE, s.maxAbsA), worst(e.shape(), f, s.maxRelIndex, s.maxRelE, s.maxRelA),
                hist, pcc, minimal, listed(s));
    }

    private static List<Long> listed(ChunkStats s) {
        List<Long> out = new ArrayList<>(s.listedCount);
        for (int k = 0; k < s.listedCount; k++) {
            out.add(s.listed[k]);
        }
        return out;
    }

    /** The worst element {@code i} (or none for -1), whose values the pass kept: {@code ev} expected, {@code av} actual. */
    private static Comparison.Worst worst(Shape shape, FloatFormat f, long i, double ev, double av) {
        if (i < 0) {
            return null;
        }
        boolean finite = Double.isFinite(ev) && Double.isFinite(av);
        double d = finite ? Math.abs(av - ev) : Double.POSITIVE_INFINITY;
        double rel = ev == 0 ? (d == 0 ? 0 : Double.POSITIVE_INFINITY) : d / Math.abs(ev);
        long ulps = finite ? Math.abs(f.ordinal(av) - f.ordinal(ev)) : Long.MAX_VALUE;
        return new Comparison.Worst(i, multiIndex(shape, i), ev, av, d, rel, ulps);
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

    private static Compared refused(Policy policy, Operand e, String problem) {
        FloatFormat f = FloatFormat.of(e.dtype());
        double inf = Double.POSITIVE_INFINITY;
        return new Compared(new Comparison(policy, false, problem, e.dtype(), e.shape(), 0, e.size(), 0, null, null, List.of(), Double.NaN,
                new Comparison.Minimal(Long.MAX_VALUE, inf, inf, inf, f.defaultRtol(), Double.NaN, Double.NaN), List.of()), null);
    }
}
