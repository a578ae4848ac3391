package org.stagecheck.golden.derive;

import org.stagecheck.backend.MathMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.stagecheck.interp.Precision;
import org.stagecheck.interp.Stepper;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.tensor.Tensor;

/**
 * The conforming ensemble (docs/golden.md, "The derived tolerance"): Monte Carlo arithmetic at
 * the granularity of stages. The program is evaluated in float64 once without perturbation (the
 * nominal run) and {@code samples} more times, each stage's floating outputs perturbed by an
 * independent random error of the size that stage's own f32 rounding may have, then rounded to
 * the output's storage dtype as every conforming implementation rounds it. Each perturbation is
 * carried to the outputs by the program's own math, so the spread of the samples at an output is
 * what rounding anywhere upstream does to it, without the compounding of a worst-case bound.
 *
 * <p>The perturbation of a stage's output element is {@code xi * a}, {@code xi} uniform in
 * [-1, 1], with {@code a} the stage's own rounding bound ({@link DerivedBounds} with exact inputs)
 * divided by the square root of its accumulation length (a matmul's K + 1, a sum's length; 1 for
 * element-wise stages): for n rounded additions in any order the worst case grows as n, a
 * random-rounding error as sqrt(n); {@code a} bounds the standard deviation of a sequential
 * accumulation with random rounding from above (docs/golden.md). Element-wise stages keep their
 * full worst-case bound, which covers every function within its {@link MathMode} budget.
 *
 * <p>Rounding to a narrower dtype (bf16, f16, fp8) is where conforming implementations agree
 * exactly except near a rounding boundary. The first half of the samples round to nearest and
 * measure how far each narrowed element's f32 value moves; the second half takes, for an element
 * whose nominal value lies within {@link #TIE_MARGIN} times that movement of a boundary, either
 * neighbour, alternating from sample to sample, so every boundary a conforming run may fall on either side of is explored.
 *
 * <p>Deterministic: sample {@code s} draws from its own generator seeded by {@code seed} and
 * {@code s}, element by element in stage and index order, and the samples' deviations are merged
 * by maximum, so the result depends neither on the number of threads nor on their timing.
 */
public final class Ensemble {
    /** How far (in multiples of the measured movement) a narrowing boundary is explored. */
    static final double TIE_MARGIN = 8;

    /**
     * @param samples perturbed runs (at least 2; the first half measures, the second explores boundaries)
     * @param seed    the generators' seed
     * @param threads samples run at once
     */
    public record Options(int samples, long seed, int threads) {
        public Options {
            if (samples < 2) {
                throw new IllegalArgumentException("an ensemble needs at least 2 samples, not " + samples);
            }
            if (threads < 1) {
                throw new IllegalArgumentException("threads must be at least 1, not " + threads);
            }
        }

        /** 8 samples, a fixed seed, up to 4 threads. */
        public static Options defaults() {
            return new Options(8, 0x5EED_C0DEL, Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors())));
        }

        public Options withSamples(int n) {
            return new Options(n, seed, threads);
        }

        public Options withThreads(int n) {
            return new Options(samples, seed, n);
        }
    }

    /**
     * An arg-max element whose top values are closer than their spread allows to tell apart.
     *
     * @param gap    how far apart the top two values are in the nominal run
     * @param spread the sum of their largest sample deviations
     */
    public record NearTie(String stage, long element, int first, int second, double gap, double spread) {}

    /**
     * @param nominal       every DRAM tensor after the nominal run (float64-mode for floating dtypes)
     * @param deviation     per floating output and state tensor, the largest |sample - nominal| of
     *                      each element over the samples (+Inf where a sample is not finite and
     *                      the nominal is, or the two differ in their non-finite value)
     * @param intChanges    per integer output and state tensor, how many samples changed each element
     * @param argmaxSpreads per arg-max stage, its input's nominal values and largest deviations: what
     *                      {@link #nearTies(double)} reads with the caller's safety factor
     */
    public record Result(Map<String, Tensor> nominal, Map<String, double[]> deviation, Map<String, int[]> intChanges,
                         List<ArgmaxSpread> argmaxSpreads, int samples) {
        public Result {
            nominal = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(nominal));
            deviation = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(deviation));
            intChanges = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(intChanges));
            argmaxSpreads = List.copyOf(argmaxSpreads);
        }

        /**
         * The arg-max elements whose top value and another are no further apart than
         * {@code factor} times the sum of their deviations: another conforming implementation
         * may pick the other index.
         */
        public List<NearTie> nearTies(double factor) {
            List<NearTie> out = new ArrayList<>();
            for (ArgmaxSpread a : argmaxSpreads) {
                a.nearTies(factor, out);
            }
            return out;
        }
    }

    /** The nominal input of an arg-max stage and its largest sample deviations (outer x len x inner layout). */
    public record ArgmaxSpread(String stage, double[] nominal, double[] deviation, int outer, int len, int inner) {
        void nearTies(double factor, List<NearTie> out) {
            for (int o = 0; o < outer; o++) {
                for (int in = 0; in < inner; in++) {
                    int base = o * len * inner + in;
                    int best = 0;
                    for (int a = 1; a < len; a++) {
                        if (nominal[base + a * inner] > nominal[base + best * inner]) {
                            best = a;
                        }
                    }
                    double top = nominal[base + best * inner];
                    int closest = -1;
                    double closestGap = Double.POSITIVE_INFINITY;
                    double closestSpread = 0;
                    for (int a = 0; a < len; a++) {
                        if (a == best) {
                            continue;
                        }
                        double gap = top - nominal[base + a * inner];
                        double spread = deviation[base + best * inner] + deviation[base + a * inner];
                        // two values no sample moves are exact: their order (ties to the first index) is certain
                        if (spread > 0 && !(gap > factor * spread) && gap < closestGap) {
                            closest = a;
                            closestGap = gap;
                            closestSpread = spread;
                        }
                    }
                    if (closest >= 0) {
                        out.add(new NearTie(stage, (long) o * inner + in, best, closest, closestGap, closestSpread));
                    }
                }
            }
        }
    }

    private Ensemble() {
    }

    /**
     * The ensemble of {@code program} run on {@code bound} with {@code params}, each stage's own
     * rounding budgeted by {@code mode}.
     *
     * @throws DerivedBounds.BoundException naming the stage where a float64 evaluation faulted
     */
    public static Result compute(Program program, Map<String, Tensor> bound, Map<String, Long> params, MathMode mode,
                                 Options options) throws DerivedBounds.BoundException {
        Plan plan = Plan.of(program, bound, params, mode);
        Deviations merged = new Deviations(plan);
        int measuring = options.samples() / 2;
        runSamples(plan, params, options, 0, measuring, false, merged);
        plan.freezeMovement(merged);
        runSamples(plan, params, options, measuring, options.samples(), true, merged);
        Map<String, double[]> dev = new LinkedHashMap<>();
        Map<String, int[]> ints = new LinkedHashMap<>();
        for (int o = 0; o < plan.outputs.size(); o++) {
            TensorDecl d = plan.outputs.get(o);
            if (d.dtype().isFloating()) {
                dev.put(d.name(), merged.outputs[o]);
            } else {
                ints.put(d.name(), merged.intChanges[o]);
            }
        }
        List<ArgmaxSpread> argmax = new ArrayList<>();
        for (int w = 0; w < plan.argmax.size(); w++) {
            Plan.Argmax a = plan.argmax.get(w);
            argmax.add(new ArgmaxSpread(a.stage(), a.nominal(), merged.argmax[w], a.outer(), a.len(), a.inner()));
        }
        return new Result(plan.nominal, dev, ints, argmax, options.samples());
    }

    private static void runSamples(Plan plan, Map<String, Long> params, Options options,
                                   int from, int to, boolean explore, Deviations merged) throws DerivedBounds.BoundException {
        if (from >= to) {
            return;
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(options.threads(), to - from), r -> {
            Thread t = new Thread(r, "stagecheck-ensemble");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<Deviations>> runs = new ArrayList<>();
            for (int s = from; s < to; s++) {
                int sample = s;
                runs.add(pool.submit(() -> Sample.run(plan, params, options.seed(), sample, explore)));
            }
            for (Future<Deviations> f : runs) {
                merged.mergeMax(f.get());
            }
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Sample.SampleFault sf) {
                throw new DerivedBounds.BoundException(sf.getMessage());
            }
            throw new IllegalStateException("an ensemble sample failed", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DerivedBounds.BoundException("interrupted while running the ensemble");
        } finally {
            pool.shutdownNow();
        }
    }

    /** The element-wise largest deviations seen so far, laid out like {@link Plan}'s tracked values. */
    static final class Deviations {
        final double[][] outputs;
        final int[][] intChanges;
        final double[][] argmax;
        /** Per narrowing port (in {@link Plan#narrowing} order), the f32 value's largest movement before rounding. */
        final double[][] movement;

        Deviations(Plan plan) {
            outputs = new double[plan.outputs.size()][];
            intChanges = new int[plan.outputs.size()][];
            for (int o = 0; o < outputs.length; o++) {
                int n = Math.toIntExact(plan.outputs.get(o).shape().elementCount());
                if (plan.outputs.get(o).dtype().isFloating()) {
                    outputs[o] = new double[n];
                } else {
                    intChanges[o] = new int[n];
                }
            }
            argmax = new double[plan.argmax.size()][];
            for (int w = 0; w < argmax.length; w++) {
                argmax[w] = new double[plan.argmax.get(w).nominal().length];
            }
            movement = new double[plan.narrowing.size()][];
            for (int p = 0; p < movement.length; p++) {
                movement[p] = new double[plan.narrowing.get(p).nominalBeforeRounding().length];
            }
        }

        void mergeMax(Deviations other) {
            for (int o = 0; o < outputs.length; o++) {
                if (outputs[o] != null) {
                    maxInto(outputs[o], other.outputs[o]);
                } else {
                    for (int i = 0; i < intChanges[o].length; i++) {
                        intChanges[o][i] += other.intChanges[o][i];
                    }
                }
            }
            for (int w = 0; w < argmax.length; w++) {
                maxInto(argmax[w], other.argmax[w]);
            }
            for (int p = 0; p < movement.length; p++) {
                maxInto(movement[p], other.movement[p]);
            }
        }

        private static void maxInto(double[] into, double[] from) {
            for (int i = 0; i < into.length; i++) {
                // NaN never arises (deviations are |differences| with non-finite cases mapped to +Inf)
                into[i] = Math.max(into[i], from[i]);
            }
        }
    }

    /** |x - nominal|, with non-finite cases: equal non-finite values are 0 apart, any other mix +Inf. */
    static double deviation(double x, double nominal) {
        if (Double.isFinite(x) && Double.isFinite(nominal)) {
            return Math.abs(x - nominal);
        }
        if (Double.isNaN(x) && Double.isNaN(nominal) || x == nominal) {
            return 0;
        }
        return Double.POSITIVE_INFINITY;
    }

    /** Whether stage {@code st} computes (its outputs get their own rounding) or only moves data. */
    public static boolean computes(Stage st) {
        return switch (st.kind()) {
            case StageKind.Load l -> false;
            case StageKind.Store s -> false;
            case StageKind.Recv r -> false;
            case StageKind.AllReduce a -> true;
            case StageKind.Scalar sc -> true;
            case StageKind.Compute c -> switch (c.op()) {
                case ComputeOp.Generic g -> true;
                case ComputeOp.MatMul m -> true;
                case ComputeOp.Reduce r -> true;
                case ComputeOp.Reshape r -> false;
                case ComputeOp.Transpose t -> false;
                case ComputeOp.Slice s -> false;
                case ComputeOp.Concat cc -> false;
            };
        };
    }

    /** The reduce op of an arg-max stage, or null. */
    static ComputeOp.Reduce argmaxOf(Stage st) {
        if (st.kind() instanceof StageKind.Compute c && c.op() instanceof ComputeOp.Reduce r && r.fn() == ReduceFn.ARGMAX) {
            return r;
        }
        return null;
    }

    /** The DRAM tensors a run produces: outputs and state, in declaration order. */
    static List<TensorDecl> produced(Program program) {
        List<TensorDecl> out = new ArrayList<>();
        for (TensorDecl d : program.tensors()) {
            if (d.role().isResult()) {
                out.add(d);
            }
        }
        return out;
    }

    /**
     * A float64 run state over {@code initial} (every DRAM tensor's value before the run, made once
     * and shared by the samples: a store copies a tensor before its first write).
     */
    static Stepper trueValues(Program program, Map<String, Tensor> initial, Map<String, Long> params) {
        Stepper val = new Stepper(program, Precision.F64, params);
        initial.forEach(val::putSharedTensor);
        return val;
    }
}
