package org.stagecheck.golden.derive;

import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import org.stagecheck.interp.StageFault;
import org.stagecheck.interp.Stepper;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.tensor.Tensor;

/** One perturbed run of an {@link Ensemble} and how far it ended from the nominal run. */
final class Sample {
    /** A stage that faulted in a perturbed run although the nominal run did not. */
    static final class SampleFault extends Exception {
        SampleFault(String message) {
            super(message);
        }
    }

    private Sample() {
    }

    /**
     * Runs sample {@code sample}: measuring (round to nearest, record each narrowed value's
     * movement) or exploring (either rounding within the plan's margins).
     */
    static Ensemble.Deviations run(Plan plan, Map<String, Long> params, long seed, int sample, boolean explore) throws SampleFault {
        Ensemble.Deviations d = new Ensemble.Deviations(plan);
        SplittableRandom rng = new SplittableRandom(seed + 0x9E3779B97F4A7C15L * (sample + 1L));
        List<Stage> stages = plan.program.stages();
        try (Stepper val = Ensemble.trueValues(plan.program, plan.initial, params)) {
            for (int i = 0; i < stages.size(); i++) {
                Stage st = stages.get(i);
                try {
                    Integer w = plan.argmaxAt.get(i);
                    if (w != null) {
                        Plan.Argmax a = plan.argmax.get(w);
                        Tensor x = val.read(a.input());
                        double[] dev = d.argmax[w];
                        for (int j = 0; j < dev.length; j++) {
                            dev[j] = Math.max(dev[j], Ensemble.deviation(x.getDouble(j), a.nominal()[j]));
                        }
                    }
                    val.run(st);
                    for (Plan.Port p : plan.ports.get(i)) {
                        perturb(plan, p, val, rng, d, explore, sample);
                    }
                } catch (StageFault f) {
                    throw new SampleFault("stage " + i + " '" + st.id() + "' faulted in perturbed run " + sample
                            + " (the nominal run did not): " + f.getMessage());
                }
            }
            for (int o = 0; o < plan.outputs.size(); o++) {
                TensorDecl decl = plan.outputs.get(o);
                Tensor got = val.tensors().get(decl.name());
                Tensor nominal = plan.nominal.get(decl.name());
                if (decl.dtype().isFloating()) {
                    double[] dev = d.outputs[o];
                    for (int j = 0; j < dev.length; j++) {
                        dev[j] = Ensemble.deviation(got.getDouble(j), nominal.getDouble(j));
                    }
                } else {
                    int[] changed = d.intChanges[o];
                    for (int j = 0; j < changed.length; j++) {
                        changed[j] = got.getInt(j) != nominal.getInt(j) ? 1 : 0;
                    }
                }
            }
        }
        return d;
    }

    private static void perturb(Plan plan, Plan.Port p, Stepper val, SplittableRandom rng, Ensemble.Deviations d,
                                boolean explore, int sample) throws StageFault {
        double[] x = val.read(p.buffer()).toDoubles();
        double[] amp = p.amplitude();
        if (amp != null) {
            for (int j = 0; j < x.length; j++) {
                double a = amp[j];
                if (a > 0 && a < Double.POSITIVE_INFINITY && Double.isFinite(x[j])) {
                    x[j] += a * rng.nextDouble(-1, 1);
                }
            }
        }
        int n = p.narrowIndex();
        if (n >= 0) {
            if (!explore) {
                double[] before = plan.narrowing.get(n).nominalBeforeRounding();
                double[] move = d.movement[n];
                for (int j = 0; j < x.length; j++) {
                    move[j] = Math.max(move[j], Ensemble.deviation(x[j], before[j]));
                    x[j] = Plan.round(p.dtype(), x[j]);
                }
            } else {
                double[] margin = plan.margins[n];
                for (int j = 0; j < x.length; j++) {
                    double m = margin[j];
                    double r = Plan.round(p.dtype(), x[j]);
                    if (m > 0 && m < Double.POSITIVE_INFINITY && Double.isFinite(x[j])) {
                        double lo = Plan.round(p.dtype(), x[j] - m);
                        double hi = Plan.round(p.dtype(), x[j] + m);
                        if (lo != hi) {
                            // alternate by sample, offset by element: every explored element takes
                            // each side in every pair of consecutive exploring samples
                            r = ((sample + j) & 1) == 0 ? lo : hi;
                        }
                    }
                    x[j] = r;
                }
            }
        }
        val.write(p.buffer(), Tensor.wrapDoubles(p.dtype(), p.shape(), x));
    }
}
