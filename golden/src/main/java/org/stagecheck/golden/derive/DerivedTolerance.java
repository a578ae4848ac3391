package org.stagecheck.golden.derive;

import org.stagecheck.backend.MathMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.tensor.Tensor;

/**
 * The tolerance a golden case stores for the {@code derived} policy (docs/golden.md, "The derived
 * tolerance"): per element, the smaller of
 * <ul>
 *   <li>the <b>ensemble</b> tolerance, {@link #FACTOR} times the largest deviation of any of the
 *   {@link Ensemble}'s conforming samples from the nominal value, and</li>
 *   <li>the <b>analytic</b> tolerance, {@link #ANALYTIC_FACTOR} times twice the worst-case bound of {@link DerivedBounds} (sound
 *   for every conforming implementation, tight for shallow programs, growing without limit
 *   through deep ones),</li>
 * </ul>
 * rounded up to f32. Each output says how many of its elements each basis set, and the notes
 * name every element that is ill-conditioned (its tolerance reaches its value) or unbounded, and
 * every arg-max whose top values are within their tolerance of each other.
 */
public final class DerivedTolerance {
    /**
     * The ensemble's safety factor: a conforming result may sit this many times the largest
     * deviation of the samples from the nominal value away from the reference. Chosen so an
     * independent float64 implementation uses at most 0.3 of the tolerance on every authored cut
     * (measured: docs/golden.md, "Measured"), while a bug moving a value by more than about
     * ten times the samples' largest deviation is caught.
     */
    public static final double FACTOR = 10;

    /** The analytic bound's warning for an integer result that conforming implementations may compute differently. */
    static final String INTEGER_OUTPUT_WARNING = "is computed from values whose bound does not rule out a different result";

    /**
     * The margin on the analytic figure: twice the worst-case bound is how far two conforming
     * implementations can be apart, and on a shallow output a correct backend can use most of it
     * (one ULP of a rounding against a bound of about one ULP); four times that leaves a correct
     * backend at most a quarter of its tolerance wherever the analytic figure is the smaller.
     */
    public static final double ANALYTIC_FACTOR = 4;

    /** How many elements shown per note. */
    private static final int SHOWN = 5;

    /**
     * How many elements of one output each basis set.
     *
     * @param exact       tolerance 0: every conforming implementation computes the element exactly
     * @param ensemble    the ensemble's spread was the smaller
     * @param analytic    the analytic bound was the smaller
     * @param unbounded   neither is finite (named in the notes)
     * @param illConditioned elements whose tolerance exceeds 2^-7 of their magnitude (named in the notes)
     */
    public record Basis(long exact, long ensemble, long analytic, long unbounded, long illConditioned) {
        /** One line, e.g. {@code ensemble 60, analytic 4, exact 0}. */
        public String describe() {
            StringBuilder b = new StringBuilder("ensemble " + ensemble + ", analytic " + analytic + ", exact " + exact);
            if (unbounded > 0) {
                b.append(", unbounded ").append(unbounded);
            }
            if (illConditioned > 0) {
                b.append(", ill-conditioned ").append(illConditioned);
            }
            return b.toString();
        }
    }

    /**
     * @param tolerances per floating output and state tensor, the f32 tolerance tensor
     * @param bases      per floating output and state tensor, what set its elements
     * @param notes      ill-conditioned and unbounded elements, uncertain integers, near-tie arg-maxes
     * @param nominal    every DRAM tensor's nominal float64 value (narrow outputs rounded)
     * @param analytic   the worst-case bounds the analytic tolerance came from
     */
    public record Result(Map<String, Tensor> tolerances, Map<String, Basis> bases, List<String> notes,
                         Map<String, Tensor> nominal, DerivedBounds.Result analytic, int samples) {
        public Result {
            tolerances = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(tolerances));
            bases = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(bases));
            notes = List.copyOf(notes);
        }

        /** How the tolerance was made, for a case's provenance. */
        public String method() {
            return "min(ensemble: " + samples + " samples x " + FACTOR + ", analytic: " + ANALYTIC_FACTOR + " x 2 x worst-case bound)";
        }
    }

    private DerivedTolerance() {
    }

    /** The derived tolerance of every output and state tensor of {@code program} run on {@code bound}. */
    public static Result compute(Program program, Map<String, Tensor> bound, Map<String, Long> params, MathMode mode,
                                 Ensemble.Options options) throws DerivedBounds.BoundException {
        DerivedBounds.Result analytic = DerivedBounds.compute(program, bound, params, mode);
        Ensemble.Result ensemble = Ensemble.compute(program, bound, params, mode, options);
        Map<String, Tensor> tolerances = new LinkedHashMap<>();
        Map<String, Basis> bases = new LinkedHashMap<>();
        List<String> notes = new ArrayList<>();
        for (TensorDecl d : Ensemble.produced(program)) {
            if (d.dtype().isFloating()) {
                combine(d, analytic.bounds().get(d.name()), ensemble.deviation().get(d.name()),
                        ensemble.nominal().get(d.name()), tolerances, bases, notes);
            } else {
                intNotes(d, ensemble.intChanges().get(d.name()), ensemble.samples(), notes);
            }
        }
        // an integer computed inside one stage from floats (a cast, a comparison) moves with that
        // stage's own rounding, which the ensemble's stage-level perturbations never reach: the
        // analytic bound names it (arg-max ties are the ensemble's, below)
        for (String w : analytic.warnings()) {
            if (w.contains(INTEGER_OUTPUT_WARNING)) {
                notes.add(w);
            }
        }
        for (Ensemble.NearTie t : ensemble.nearTies(FACTOR)) {
            notes.add(String.format(java.util.Locale.ROOT,
                    "stage '%s': arg-max element %d: values %d and %d are %.3g apart, within their tolerance %.3g; another conforming implementation may pick either index",
                    t.stage(), t.element(), t.first(), t.second(), t.gap(), FACTOR * t.spread()));
        }
        return new Result(tolerances, bases, notes, ensemble.nominal(), analytic, ensemble.samples());
    }

    private static void combine(TensorDecl d, Tensor bound, double[] deviation, Tensor nominal, Map<String, Tensor> tolerances,
                                Map<String, Basis> bases, List<String> notes) {
        int n = deviation.length;
        float[] t = new float[n];
        long exact = 0;
        long ens = 0;
        long ana = 0;
        List<Integer> unbounded = new ArrayList<>();
        List<Integer> ill = new ArrayList<>();
        List<Integer> overflow = new ArrayList<>();
        double rms = rms(nominal);
        for (int i = 0; i < n; i++) {
            double e = FACTOR * deviation[i];
            double a = ANALYTIC_FACTOR * 2 * bound.getDouble(i);
            if (Double.isNaN(a)) {
                a = Double.POSITIVE_INFINITY;
            }
            double tol = Math.min(e, a);
            if (tol == 0) {
                exact++;
            } else if (e <= a) {
                ens++;
            } else {
                ana++;
            }
            if (e == Double.POSITIVE_INFINITY && a < Double.POSITIVE_INFINITY) {
                // a sample ended non-finite where the nominal did not (or the reverse), as at an
                // overflow boundary: the analytic bound is finite, but no tolerance passes the
                // other side of it (NaN/Inf must match), so a conforming run may fail there
                overflow.add(i);
            }
            if (tol == Double.POSITIVE_INFINITY) {
                unbounded.add(i);
            } else {
                double v = Math.abs(nominal.getDouble(i));
                if (tol > 0x1p-7 * v && tol > 0x1p-16 * rms) {
                    ill.add(i);
                }
            }
            float f = (float) tol;
            t[i] = f < tol ? Math.nextUp(f) : f;
        }
        tolerances.put(d.name(), Tensor.wrapFloats(Shape.of(d.shape().toArray()), t));
        bases.put(d.name(), new Basis(exact, ens, ana, unbounded.size(), ill.size()));
        if (!unbounded.isEmpty()) {
            notes.add("output '" + d.name() + "': " + unbounded.size() + " element(s) have no finite tolerance (a conforming run may overflow or fault there; they pass any finite value): "
                    + elements(d.shape(), unbounded));
        }
        if (!overflow.isEmpty()) {
            notes.add("output '" + d.name() + "': " + overflow.size() + " element(s) are finite in some conforming samples and not in others (an overflow or NaN boundary; no tolerance covers both, so a conforming run may fail there): "
                    + elements(d.shape(), overflow));
        }
        if (!ill.isEmpty()) {
            notes.add("output '" + d.name() + "': " + ill.size() + " element(s) are ill-conditioned (rounding upstream moves them by more than 2^-7 of their value; their tolerance is wide): "
                    + elements(d.shape(), ill));
        }
    }

    private static void intNotes(TensorDecl d, int[] changes, int samples, List<String> notes) {
        List<Integer> changed = new ArrayList<>();
        for (int i = 0; i < changes.length; i++) {
            if (changes[i] > 0) {
                changed.add(i);
            }
        }
        if (!changed.isEmpty()) {
            notes.add("output '" + d.name() + "': " + changed.size() + " integer element(s) differ in some of the " + samples
                    + " conforming samples (another conforming implementation may compute them differently): " + elements(d.shape(), changed));
        }
    }

    private static double rms(Tensor t) {
        double s = 0;
        long n = 0;
        for (long i = 0; i < t.size(); i++) {
            double v = t.getDouble(i);
            if (Double.isFinite(v)) {
                s += v * v;
                n++;
            }
        }
        return n == 0 ? 0 : Math.sqrt(s / n);
    }

    /** The first few of {@code flat} as multi-indices, e.g. {@code [0, 3], [0, 7] and 2 more}. */
    static String elements(Shape shape, List<Integer> flat) {
        StringBuilder b = new StringBuilder();
        for (int k = 0; k < Math.min(SHOWN, flat.size()); k++) {
            if (k > 0) {
                b.append(", ");
            }
            b.append(java.util.Arrays.toString(multiIndex(shape, flat.get(k))));
        }
        if (flat.size() > SHOWN) {
            b.append(" and ").append(flat.size() - SHOWN).append(" more");
        }
        return b.toString();
    }

    static long[] multiIndex(Shape shape, long flat) {
        long[] idx = new long[shape.rank()];
        for (int a = shape.rank() - 1; a >= 0; a--) {
            idx[a] = flat % shape.dim(a);
            flat /= shape.dim(a);
        }
        return idx;
    }
}
