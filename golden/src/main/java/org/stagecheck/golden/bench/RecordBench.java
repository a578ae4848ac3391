package org.stagecheck.golden.bench;

import java.util.Locale;
import java.util.Map;

import org.stagecheck.backend.RunResult;
import org.stagecheck.golden.derive.DerivedBounds;
import org.stagecheck.golden.derive.DerivedTolerance;
import org.stagecheck.golden.derive.Ensemble;
import org.stagecheck.backend.MathMode;
import org.stagecheck.backend.Backends;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.tensor.Tensor;

/**
 * {@code stagecheck bench record}: what the conforming ensemble costs a recording. Times, in one
 * process and side by side, the work of a plain record (the reference run and the analytic
 * bound) and of a record with the ensemble (the same plus the nominal run and the samples), best
 * of {@code repeats} after a warm-up of each, and prints their ratio.
 */
public final class RecordBench {
    /** One program to record. */
    public record Subject(String name, Program program, Map<String, Tensor> bound, Map<String, Long> params) {}

    private RecordBench() {
    }

    /** The table for {@code subjects}; {@code progress} hears a line per subject. */
    public static String run(java.util.List<Subject> subjects, int repeats, Ensemble.Options options,
                             java.util.function.Consumer<String> progress) throws DerivedBounds.BoundException {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "golden record of a decode step: plain (reference run + analytic bound) against the ensemble (%d samples, %d threads), best of %d after a warm-up; %d cpus%n%n",
                options.samples(), options.threads(), repeats, Runtime.getRuntime().availableProcessors()));
        b.append("| model | plain s | with ensemble s | ratio |\n| --- | ---: | ---: | ---: |\n");
        for (Subject s : subjects) {
            progress.accept("bench record: " + s.name());
            plain(s);
            withEnsemble(s, options);
            double p = Double.POSITIVE_INFINITY;
            double e = Double.POSITIVE_INFINITY;
            for (int r = 0; r < repeats; r++) {
                long t0 = System.nanoTime();
                plain(s);
                long t1 = System.nanoTime();
                withEnsemble(s, options);
                long t2 = System.nanoTime();
                p = Math.min(p, (t1 - t0) / 1e9);
                e = Math.min(e, (t2 - t1) / 1e9);
            }
            b.append(String.format(Locale.ROOT, "| %s | %.3f | %.3f | %.1fx |%n", s.name(), p, e, e / p));
        }
        return b.toString();
    }

    private static void plain(Subject s) throws DerivedBounds.BoundException {
        reference(s);
        DerivedBounds.compute(s.program(), s.bound(), s.params(), MathMode.DEFAULT);
    }

    private static void withEnsemble(Subject s, Ensemble.Options options) throws DerivedBounds.BoundException {
        reference(s);
        DerivedTolerance.compute(s.program(), s.bound(), s.params(), MathMode.DEFAULT, options);
    }

    private static void reference(Subject s) {
        RunResult r = Backends.named("interp").run(s.program(), s.bound(), s.params());
        if (!r.ok()) {
            throw new IllegalStateException(s.name() + ": the reference run faulted: " + r.faults().get(0).render());
        }
    }
}
