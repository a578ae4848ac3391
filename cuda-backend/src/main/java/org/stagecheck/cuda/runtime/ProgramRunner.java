package org.stagecheck.cuda.runtime;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.stagecheck.backend.RunResult;
import org.stagecheck.cuda.lower.Kernel;
import org.stagecheck.cuda.lower.LoweredProgram;
import org.stagecheck.cuda.lower.MemoryPlan;
import org.stagecheck.cuda.lower.Placed;
import org.stagecheck.cuda.lower.StaticFault;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.tensor.Tensor;

/**
 * One lowered program resident on a launcher: its chip allocations, the control allocation
 * (fault record {@code F} at its start, parameters {@code P} after it), and its graph state.
 * {@link #step} runs the program once (a decode step): uploads the bound tensors that changed
 * and the parameters, launches the stages' kernels eagerly or through segment graphs
 * ({@link SegmentGraphs}), and downloads the tensors the program writes, with the first fault as
 * a diagnostic naming its stage. Allocations persist across steps, so weights stay resident and
 * graphs captured on the first step replay on later ones.
 */
public final class ProgramRunner implements AutoCloseable {
    private static final long PARAMS_AT = 64;

    private final Launcher launcher;
    private final LoweredProgram lowered;
    private final int kernelBase;
    private final long[] chips;
    private final long control;
    private final SegmentGraphs graphs;
    private final Residency residency = new Residency();
    /** DRAM tensors some stage writes (a Store): the only ones a step downloads. */
    private final Set<String> written;

    public ProgramRunner(Launcher launcher, LoweredProgram lowered, int kernelBase, int segmentStages) throws LaunchException {
        this.launcher = launcher;
        this.lowered = lowered;
        this.kernelBase = kernelBase;
        MemoryPlan plan = lowered.memory();
        this.chips = new long[plan.chips()];
        for (int c = 0; c < chips.length; c++) {
            chips[c] = launcher.alloc(plan.chipBytes(c));
        }
        this.control = launcher.alloc(controlBytes());
        this.graphs = new SegmentGraphs(lowered, segmentStages);
        // a fresh allocation is zeroed: an unbound tensor needs nothing on the first step
        for (String t : lowered.program().tensorsByName().keySet()) {
            residency.record(t, null);
        }
        Set<String> w = new HashSet<>();
        for (Stage st : lowered.program().stages()) {
            if (st.kind() instanceof StageKind.Store s) {
                w.add(s.tensor());
            }
        }
        this.written = Set.copyOf(w);
    }

    public LoweredProgram lowered() {
        return lowered;
    }

    public GraphCounters counters() {
        return graphs.counters();
    }

    /** The 64-bit kernel arguments after the element count: chip bases, parameter array, fault record. */
    long[] arguments(long threads) {
        long[] a = new long[chips.length + 3];
        a[0] = threads;
        System.arraycopy(chips, 0, a, 1, chips.length);
        a[chips.length + 1] = control + PARAMS_AT;
        a[chips.length + 2] = control;
        return a;
    }

    /** The arguments of a launch on other chip allocations (the benchmark's copies): the same parameters and fault record. */
    long[] arguments(long threads, long[] chipBases) {
        long[] a = arguments(threads);
        System.arraycopy(chipBases, 0, a, 1, chips.length);
        return a;
    }

    /** The launcher's number of this program's kernel {@code i}. */
    int kernelNumber(int i) {
        return kernelBase + i;
    }

    /** The current base address of chip {@code c}'s allocation. */
    long chipBase(int c) {
        return chips[c];
    }

    /** Launches kernel number {@code i} of this program on the main stream. */
    void launch(int i) throws LaunchException {
        launch(i, Launcher.Lane.MAIN);
    }

    /** Launches kernel number {@code i} of this program on {@code lane}. */
    void launch(int i, Launcher.Lane lane) throws LaunchException {
        Kernel k = lowered.kernels().get(i);
        try {
            launcher.launch(kernelBase + i, k.threads(), arguments(k.threads()), lane);
        } catch (LaunchException e) {
            // launches are asynchronous: a kernel fault reported here happened in a kernel before this one
            if (e.raisedByAnEarlierKernel()) {
                throw unattributed(e, "at the launch of stage " + k.stageIndex() + " '" + k.stageId() + "'");
            }
            throw e.atStage(k.stageIndex(), k.stageId(), k.name());
        }
    }

    Launcher launcher() {
        return launcher;
    }

    SegmentGraphs graphs() {
        return graphs;
    }

    /**
     * Moves chip {@code chip}'s allocation to a new address, contents kept: what a runtime does
     * when it grows or defragments memory. Every graph that baked the old address is then stale.
     */
    public void reallocate(int chip) throws LaunchException {
        long bytes = lowered.memory().chipBytes(chip);
        long fresh = launcher.alloc(bytes);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment tmp = a.allocate(bytes);
            launcher.download(chips[chip], tmp, bytes);
            launcher.upload(fresh, tmp, bytes);
        }
        launcher.free(chips[chip]);
        chips[chip] = fresh;
    }

    /**
     * Runs the program once, bringing back every DRAM tensor. Bindings and parameters must have
     * been checked (as the reference checks them); {@code useGraphs} replays captured segments,
     * {@code trace} runs eagerly, synchronises after each stage and keeps every stage's outputs.
     */
    public RunResult step(Map<String, Tensor> bound, Map<String, Long> params, boolean trace, boolean useGraphs)
            throws LaunchException {
        return step(bound, params, StepRequest.of(trace, useGraphs));
    }

    /**
     * Runs the program once as {@code how} says. Only what changed moves to the device: a bound
     * tensor whose region already holds that very object (uploaded on an earlier step, or
     * downloaded by one and bound back, as a decode loop carries its state) is not uploaded
     * again, and an unbound tensor is cleared only when its region may hold something else than
     * zeros ({@link Residency}). The parameters and the fault record move every step. Back come
     * the tensors the program writes (a Store) that {@code how} asks for, the traced outputs and
     * the fault record; a tensor no stage writes is the host copy its region holds. A step that
     * fails part-way forgets what the device holds, so the next one uploads everything bound.
     */
    public RunResult step(Map<String, Tensor> bound, Map<String, Long> params, StepRequest how) throws LaunchException {
        try {
            return run(bound, params, how);
        } catch (LaunchException | RuntimeException e) {
            residency.forgetAll();
            throw e;
        }
    }

    private RunResult run(Map<String, Tensor> bound, Map<String, Long> params, StepRequest how) throws LaunchException {
        MemoryPlan plan = lowered.memory();
        upload(bound, params);
        Map<String, List<Tensor>> traced = new LinkedHashMap<>();
        List<Stage> stages = lowered.program().stages();
        if (how.stageByStage()) {
            stageByStage(how.trace(), traced);
        } else {
            try {
                graphs.run(this, how.graphs());
            } catch (LaunchException e) {
                throw unattributed(e, "while the step's kernels were launched or replayed");
            }
        }
        try {
            launcher.synchronize();
        } catch (LaunchException e) {
            throw unattributed(e, "at the end of the step");
        }
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        for (TensorDecl t : lowered.program().tensorsByName().values()) {
            String name = t.name();
            if (!written.contains(name)) {
                if (how.wants(name)) {
                    Tensor v = bound.get(name);
                    tensors.put(name, v != null ? v : Tensor.zeros(t.dtype(), t.shape()));
                }
            } else if (how.wants(name)) {
                Tensor v = read(plan.tensor(name));
                residency.record(name, v);
                tensors.put(name, v);
            } else {
                residency.forget(name);
            }
        }
        long[] f = fault();
        if (f != null) {
            int i = (int) f[0] - 1;
            return new RunResult(tensors, traced, List.of(RuntimeFaults.diagnostic(lowered.program(), i, f)), stages.get(i).id());
        }
        StaticFault sf = lowered.staticFault();
        if (sf != null) {
            Diagnostic d = sf.code().atStage(sf.stageIndex(), sf.stageId(), "/stages/" + sf.stageIndex(), sf.buffer(), sf.message());
            return new RunResult(tensors, traced, List.of(d), sf.stageId());
        }
        return new RunResult(tensors, traced, List.of(), null);
    }

    /** Moves what changed: bound tensors their regions do not hold, zeros where needed, then parameters and a clear fault record. */
    private void upload(Map<String, Tensor> bound, Map<String, Long> params) throws LaunchException {
        MemoryPlan plan = lowered.memory();
        for (TensorDecl t : lowered.program().tensorsByName().values()) {
            Tensor v = bound.get(t.name());
            if (residency.holds(t.name(), v)) {
                continue;
            }
            Placed p = plan.tensor(t.name());
            long at = chips[p.chip()] + p.offset();
            if (v == null) {
                launcher.zero(at, p.bytes());
            } else {
                launcher.upload(at, TensorBytes.of(v), p.bytes());
            }
            residency.record(t.name(), v);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ctl = a.allocate(controlBytes());
            for (int i = 0; i < plan.params().size(); i++) {
                ctl.setAtIndex(ValueLayout.JAVA_LONG, PARAMS_AT / 8 + i, params.get(plan.params().get(i)));
            }
            launcher.upload(control, ctl, ctl.byteSize());
        }
    }

    /** Bytes of the control allocation: the fault record, then the parameters. */
    private long controlBytes() {
        return PARAMS_AT + 8L * Math.max(1, lowered.memory().params().size());
    }

    /**
     * Launches stage after stage on the main stream, waiting for the device after each, so a
     * fault the driver reports only at synchronisation names the stage that caused it; stops at
     * the first data fault; with {@code trace} keeps each stage's outputs.
     */
    private void stageByStage(boolean trace, Map<String, List<Tensor>> traced) throws LaunchException {
        MemoryPlan plan = lowered.memory();
        List<Kernel> kernels = lowered.kernels();
        List<Stage> stages = lowered.program().stages();
        for (int i = 0; i < kernels.size(); i++) {
            Kernel k = kernels.get(i);
            try {
                launcher.launch(kernelBase + i, k.threads(), arguments(k.threads()), Launcher.Lane.MAIN);
                boolean lastOfStage = i == kernels.size() - 1 || kernels.get(i + 1).stageIndex() != k.stageIndex();
                if (!lastOfStage) {
                    continue;
                }
                // every stage before this one completed: whatever the device reports now is this stage's
                launcher.synchronize();
            } catch (LaunchException e) {
                throw e.atStage(k.stageIndex(), k.stageId(), k.name());
            }
            if (fault() != null) {
                break;
            }
            if (trace) {
                Stage st = stages.get(k.stageIndex());
                List<Tensor> outs = new ArrayList<>();
                for (String out : st.outs()) {
                    outs.add(read(plan.buffer(out)));
                }
                traced.put(st.id(), outs);
            }
        }
        graphs.countEager(kernels.size());
    }

    /**
     * A fault raised inside an earlier kernel that the driver reported later (at a launch, or a
     * synchronisation): no stage can be named without synchronising after each one.
     */
    private static final String UNKNOWN_KERNEL = "the kernel that faulted is not known";

    static LaunchException unattributed(LaunchException e, String where) {
        if (e.stageIndex() >= 0 || !e.raisedByAnEarlierKernel() || e.getMessage().contains(UNKNOWN_KERNEL)) {
            return e; // named already, or not a late report, or said already (a launch's report passes through the step's)
        }
        return new LaunchException(e.errorName(), e.getMessage() + " (reported " + where + "; " + UNKNOWN_KERNEL + ":"
                + " run with trace, or synchronising after each stage, to name its stage)");
    }

    /** The fault record ({@code F[0]} = stage + 1, code, two details), or null when no stage faulted. */
    long[] faultRecord() throws LaunchException {
        return fault();
    }

    /** The fault record, or null when no stage faulted. */
    private long[] fault() throws LaunchException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment f = a.allocate(32);
            launcher.download(control, f, 32);
            long[] v = f.toArray(ValueLayout.JAVA_LONG);
            return v[0] == 0 ? null : v;
        }
    }

    private Tensor read(Placed p) throws LaunchException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment bytes = a.allocate(Math.max(p.bytes(), 1));
            launcher.download(chips[p.chip()] + p.offset(), bytes, p.bytes());
            return TensorBytes.from(p.dtype(), p.shape(), bytes);
        }
    }

    @Override
    public void close() {
        graphs.destroy(launcher);
        try {
            for (long c : chips) {
                launcher.free(c);
            }
            launcher.free(control);
        } catch (LaunchException e) {
            // freeing at the end of a session: the context goes away with the launcher anyway
        }
    }
}
