package org.stagecheck.cli;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.conformance.CaseResult;
import org.stagecheck.conformance.Conformance;
import org.stagecheck.conformance.ConformanceCase;
import org.stagecheck.cuda.ReferenceAgreement;
import org.stagecheck.cuda.CudaModule;
import org.stagecheck.cuda.CudaOptions;
import org.stagecheck.cuda.CudaSession;
import org.stagecheck.cuda.CudaSetupException;
import org.stagecheck.cuda.runtime.DeviceBench;
import org.stagecheck.cuda.runtime.DriverLauncher;
import org.stagecheck.cuda.runtime.GraphCounters;
import org.stagecheck.cuda.runtime.LaunchException;
import org.stagecheck.cuda.runtime.LauncherFactory;
import org.stagecheck.golden.Actuals;
import org.stagecheck.golden.Golden;
import org.stagecheck.golden.bench.Progress;
import org.stagecheck.golden.report.TextReport;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.tensor.RandomBindings;
import org.stagecheck.tensor.Tensor;

/**
 * The checks of {@code stagecheck cuda check} (docs/cuda.md, "The device check"), each against the
 * reference interpreter, on one target: the conformance suite, every example program, the golden
 * tiny decode cases eager and with graphs, graph mode's stale-recapture and capture-failure
 * fall-backs, and the device benchmark. Every program is compiled into one module first (one
 * compile); each check then runs on sessions of it, and a check that fails or throws is a failed
 * row, never the end of the others. One instance runs once.
 */
final class CudaCheck {
    /** Decode steps of the stale-recapture check; the chip is moved before the last. */
    static final int RECAPTURE_STEPS = 3;
    /** Steps timed eager and replayed by the benchmark. */
    static final int BENCH_STEPS = 10;
    /** Kernels listed by the benchmark's text. */
    static final int BENCH_TOP = 10;
    /** The seed of the examples' random bindings. */
    static final long EXAMPLE_SEED = 11;

    /** The setup failures that mean there is nothing to run on (bad input, not a failed check): no driver, no GPU. */
    static final Set<String> NO_DEVICE = Set.of("NO_CUDA_DRIVER", "CUDA_ERROR_NO_DEVICE", "FAKE_DRIVER_BUILD");

    /** The rows, and the benchmark's text when it ran. */
    record Outcome(List<CheckRow> rows, String benchText) {
        Outcome {
            rows = List.copyOf(rows);
        }
    }

    private final CudaOptions options;
    private final LauncherFactory factory;
    private final CudaCheckInputs inputs;
    private final Progress progress;
    private final List<ConformanceCase> conformance;
    private final List<CheckRow> rows = new ArrayList<>();
    private String benchText;

    CudaCheck(CudaOptions options, LauncherFactory factory, CudaCheckInputs inputs, Progress progress) {
        this.options = options;
        this.factory = factory;
        this.inputs = inputs;
        this.progress = progress;
        Conformance suite = Conformance.suite();
        this.conformance = suite.cases().stream().filter(c -> suite.skipReason(c).isEmpty()).toList();
    }

    /** Runs every check; bad input (no driver for the target) is thrown, everything else is a row. */
    Outcome run() throws BadInputException {
        try {
            return runAll();
        } finally {
            progress.close();
        }
    }

    private Outcome runAll() throws BadInputException {
        List<Program> programs = new ArrayList<>();
        conformance.forEach(c -> programs.add(c.program()));
        inputs.examples().forEach(e -> programs.add(e.program()));
        inputs.cases().forEach(c -> programs.add(c.recorded().program()));
        progress.phase("compiling " + programs.size() + " programs into one module", 0);
        long t0 = System.nanoTime();
        CudaModule.Lowered lowered;
        CudaModule module;
        try {
            lowered = CudaModule.lower(programs);
            module = CudaModule.build(lowered, options, factory);
        } catch (CudaSetupException e) {
            if (NO_DEVICE.contains(e.diagnostic().code())) {
                throw new BadInputException(e.diagnostic().message() + (e.diagnostic().code().equals("FAKE_DRIVER_BUILD")
                        ? "; the fake driver needs a C compiler (cc or gcc, or $STAGECHECK_CC); --emulate checks host emulation"
                        : "; add --emulate to check host emulation, or --fake-driver to check the driver path on the fake driver"));
            }
            rows.add(row("compile", CheckRow.Result.FAILED, e.diagnostic().render(), t0));
            return new Outcome(rows, null);
        }
        try (module) {
            rows.add(row("compile", CheckRow.Result.PASSED, programs.size() + " programs, " + module.lowered().stream()
                    .mapToInt(l -> l.kernels().size()).sum() + " kernels in one module", t0));
            int examplesAt = conformance.size();
            int casesAt = examplesAt + inputs.examples().size();
            guarded("conformance", conformance.size(), () -> conformance(module));
            for (int i = 0; i < inputs.examples().size(); i++) {
                CudaCheckInputs.Example e = inputs.examples().get(i);
                int index = examplesAt + i;
                guarded("example " + e.name(), 0, () -> example(module, index, e));
            }
            for (int i = 0; i < inputs.cases().size(); i++) {
                CudaCheckInputs.GoldenCase c = inputs.cases().get(i);
                int index = casesAt + i;
                guarded("golden " + c.name(), 0, () -> golden(module, index, c, false));
                guarded("golden " + c.name() + " graphs", 0, () -> golden(module, index, c, true));
            }
            guarded("graphs stale recapture", 0, () -> staleRecapture(module, casesAt));
            guarded("graphs capture failure", 0, () -> captureFailure(lowered, module, casesAt));
            guarded("bench", 0, () -> bench(module, casesAt));
        }
        return new Outcome(rows, benchText);
    }

    /** One check's body: its row (result and detail) from what it found. */
    @FunctionalInterface
    private interface Check {
        Found run() throws Exception;
    }

    /** What a check found. */
    private record Found(CheckRow.Result result, String detail) {
        static Found passed(String detail) {
            return new Found(CheckRow.Result.PASSED, detail);
        }

        static Found failed(String detail) {
            return new Found(CheckRow.Result.FAILED, detail);
        }
    }

    /** Runs {@code check} (a progress phase of {@code units}, 0 when unmeasured) and records its row; whatever it throws fails it, and only it. */
    private void guarded(String name, long units, Check check) {
        progress.phase(name, units);
        long t0 = System.nanoTime();
        Found f;
        try {
            f = check.run();
        } catch (Exception e) {
            f = Found.failed("threw " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        rows.add(row(name, f.result(), f.detail(), t0));
    }

    private CheckRow row(String check, CheckRow.Result result, String detail, long startNanos) {
        return new CheckRow(check, options.backendName(), result, detail, (System.nanoTime() - startNanos) / 1e9);
    }

    private Found conformance(CudaModule module) {
        Map<Program, Integer> index = new IdentityHashMap<>();
        for (int i = 0; i < conformance.size(); i++) {
            index.put(conformance.get(i).program(), i);
        }
        Backend onModule = new Backend() {
            @Override
            public String name() {
                return options.backendName();
            }

            @Override
            public RunResult run(Program program, Map<String, Tensor> bound, Map<String, Long> params, boolean trace) {
                try (CudaSession s = CudaSession.of(module, index.get(program), false)) {
                    return s.step(bound, params, trace);
                } catch (CudaSetupException e) {
                    return new RunResult(Map.of(), Map.of(), List.of(e.diagnostic()), null);
                }
            }
        };
        List<CaseResult> failed = new ArrayList<>();
        for (ConformanceCase c : conformance) {
            CaseResult r = Conformance.check(onModule, c);
            if (!r.passed()) {
                failed.add(r);
            }
            progress.advance(1);
        }
        if (failed.isEmpty()) {
            return Found.passed(conformance.size() + " cases");
        }
        return Found.failed(failed.size() + " of " + conformance.size() + " cases failed, the first " + failed.getFirst().caseName()
                + ": " + failed.getFirst().message());
    }

    /** The example at its parameters' minimum and maximum, on random bindings, against the reference. */
    private Found example(CudaModule module, int index, CudaCheckInputs.Example e) throws CudaSetupException {
        Program p = e.program();
        Map<String, Tensor> bound = RandomBindings.forProgram(p, EXAMPLE_SEED);
        Interpreter reference = new Interpreter(RunOptions.defaults());
        for (boolean atMax : new boolean[] {false, true}) {
            Map<String, Long> params = new LinkedHashMap<>();
            for (Param prm : p.params()) {
                params.put(prm.name(), atMax ? prm.max() : prm.min());
            }
            RunResult ref = reference.run(p, bound, params, false);
            RunResult act;
            try (CudaSession s = CudaSession.of(module, index, false)) {
                act = s.step(bound, params, false);
            }
            String why = ReferenceAgreement.disagreement(p, ref, act);
            if (why != null) {
                return Found.failed((atMax ? "at max params: " : "at min params: ") + why);
            }
        }
        return Found.passed("agrees at min and max params (" + ReferenceAgreement.policy(p).spelling() + ")");
    }

    /** The case's step on a fresh session, eager or captured and replayed, judged by the case's recorded policies. */
    private Found golden(CudaModule module, int index, CudaCheckInputs.GoldenCase c, boolean graphs) throws CudaSetupException {
        try (CudaSession s = CudaSession.of(module, index, graphs)) {
            RunResult r = s.step(c.recorded().inputs(), c.recorded().params(), false);
            Found judged = judged(c, r);
            if (judged.result() != CheckRow.Result.PASSED || !graphs) {
                return judged;
            }
            GraphCounters n = s.counters();
            if (n.captures() == 0 || n.replays() == 0 || n.graphsDisabled()) {
                return Found.failed("graph mode did not capture and replay: " + n.summary());
            }
            return Found.passed(judged.detail() + "; " + n.captures() + " graphs captured and replayed");
        }
    }

    /** {@code r} judged against case {@code c}'s expected outputs. */
    private static Found judged(CudaCheckInputs.GoldenCase c, RunResult r) {
        if (!r.ok()) {
            return Found.failed("the run faulted: " + r.faults().getFirst().render());
        }
        org.stagecheck.golden.CaseResult g = Golden.check(c.dir(), new Actuals.FromTensors(r.tensors()));
        if (g.passed()) {
            return Found.passed(g.outputs().size() + " outputs within their recorded policies");
        }
        String why = g.outputs().stream().filter(o -> !o.comparison().passed()).findFirst()
                .map(o -> TextReport.outputText(o.tensor(), o.comparison())).orElse(g.message());
        return Found.failed(g.status() + ": " + why);
    }

    /**
     * Graph mode's stale path: a chip moved between steps makes every graph that baked it stale;
     * each is captured again, counted, and the replays equal eager steps bit for bit.
     */
    private Found staleRecapture(CudaModule module, int index) throws CudaSetupException, LaunchException {
        CudaCheckInputs.GoldenCase c = inputs.decode();
        try (CudaSession eager = CudaSession.of(module, index, false); CudaSession graphs = CudaSession.of(module, index, true)) {
            RunResult last = null;
            long segments = 0;
            for (int step = 0; step < RECAPTURE_STEPS; step++) {
                if (step == RECAPTURE_STEPS - 1) {
                    graphs.reallocate(0);
                }
                RunResult e = eager.step(c.recorded().inputs(), c.recorded().params(), false);
                last = graphs.step(c.recorded().inputs(), c.recorded().params(), false);
                String differs = bitDifference(e, last);
                if (differs != null) {
                    return Found.failed("step " + step + ": replay differs from eager: " + differs);
                }
                if (step == 0) {
                    // the first step captures each segment once
                    segments = graphs.counters().captures();
                }
            }
            GraphCounters n = graphs.counters();
            // every segment bakes chip 0's base address: all are stale after the move
            if (segments == 0 || n.recaptures() != segments || n.captures() != 2 * segments || n.replays() != RECAPTURE_STEPS * segments
                    || n.notes().stream().noneMatch(s -> s.contains("stale"))) {
                return Found.failed("expected each of the " + segments + " segments captured again after the move: " + n.summary());
            }
            Found judged = judged(c, last);
            return judged.result() == CheckRow.Result.PASSED
                    ? Found.passed(n.recaptures() + " stale graphs captured again; replays equal eager; " + judged.detail())
                    : judged;
        }
    }

    /**
     * Graph mode's capture-failure path: on a launcher whose captures fail, graph mode turns off
     * for the session, the step runs eagerly with the same result, and a note says why.
     */
    private Found captureFailure(CudaModule.Lowered lowered, CudaModule module, int index) throws CudaSetupException {
        CudaCheckInputs.GoldenCase c = inputs.decode();
        LauncherFactory refusing = (source, o) -> new CaptureRefusingLauncher(factory.open(source, o));
        // the same lowered unit: its compile is the cached one, only the launcher differs
        try (CudaModule broken = CudaModule.build(lowered, options, refusing);
             CudaSession eager = CudaSession.of(module, index, false);
             CudaSession graphs = CudaSession.of(broken, index, true)) {
            RunResult e = eager.step(c.recorded().inputs(), c.recorded().params(), false);
            RunResult g = graphs.step(c.recorded().inputs(), c.recorded().params(), false);
            String differs = bitDifference(e, g);
            if (differs != null) {
                return Found.failed("the eager fall-back differs from eager: " + differs);
            }
            GraphCounters n = graphs.counters();
            if (!n.graphsDisabled() || n.eagerFallbacks() != 1 || n.captures() != 0
                    || n.notes().stream().noneMatch(s -> s.contains(CaptureRefusingLauncher.ERROR))) {
                return Found.failed("expected graph mode off after one failed capture, with a note: " + n.summary() + " " + n.notes());
            }
            Found judged = judged(c, g);
            return judged.result() == CheckRow.Result.PASSED
                    ? Found.passed("graph mode off, step run eagerly; " + judged.detail())
                    : judged;
        }
    }

    /** The device benchmark of the decode step; skipped where the kernels do not run on a GPU. */
    private Found bench(CudaModule module, int index) throws CudaSetupException, LaunchException {
        if (!(module.launcher() instanceof DriverLauncher)) {
            return new Found(CheckRow.Result.SKIPPED, "the kernels run on " + module.launcher().name() + ", not on a GPU: host timing says nothing about one");
        }
        CudaCheckInputs.GoldenCase c = inputs.decode();
        try (CudaSession s = CudaSession.of(module, index, true)) {
            DeviceBench.Report r = DeviceBench.measure(s.runner(), c.recorded().inputs(), c.recorded().params(), BENCH_STEPS);
            benchText = DeviceBench.text(r, BENCH_TOP);
            return Found.passed(String.format("%s: step eager %.3f ms, graphs %.3f ms (%s)", c.name(), r.eagerMs(),
                    r.graphMs(), r.savedText()));
        }
    }

    /** Null when both runs hold the same faults and bit-identical tensors; else the first difference. */
    private static String bitDifference(RunResult a, RunResult b) {
        if (!a.faults().equals(b.faults())) {
            return "faults " + a.faults() + " vs " + b.faults();
        }
        for (Map.Entry<String, Tensor> t : a.tensors().entrySet()) {
            Tensor other = b.tensors().get(t.getKey());
            if (other == null || !other.bitEquals(t.getValue())) {
                return "tensor '" + t.getKey() + "'";
            }
        }
        return null;
    }
}
