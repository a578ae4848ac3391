package org.stagecheck.cuda.runtime;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.stagecheck.backend.RunResult;
import org.stagecheck.cuda.lower.Kernel;
import org.stagecheck.cuda.lower.LoweredProgram;
import org.stagecheck.cuda.lower.MemoryPlan;
import org.stagecheck.cuda.lower.Placed;
import org.stagecheck.cuda.lower.StaticFault;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.tensor.Tensor;

/**
 * One lowered program resident on a launcher: its chip allocations, the control allocation
 * (fault record {@code F} at its start, parameters {@code P} after it), and its graph state.
 * {@link #step} runs the program once (a decode step): uploads the bound tensors and parameters,
 * launches the stages' kernels eagerly or through segment graphs ({@link SegmentGraphs}), and
 * downloads every DRAM tensor, with the first fault as a diagnostic naming its stage.
 * Allocations persist across steps, so graphs captured on the first step replay on later ones.
 */
public final class ProgramRunner implements AutoCloseable {
    private static final long PARAMS_AT = 64;

    private final Launcher launcher;
    private final LoweredProgram lowered;
    private final int kernelBase;
    private final long[] chips;
    private final long control;
    private final SegmentGraphs graphs;

    public ProgramRunner(Launcher launcher, LoweredProgram lowered, int kernelBase, int segmentStages) throws LaunchException {
        this.launcher = launcher;
        this.lowered = lowered;
        this.kernelBase = kernelBase;
        MemoryPlan plan = lowered.memory();
        this.chips = new long[plan.chips()];
        for (int c = 0; c < chips.length; c++) {
            chips[c] = launcher.alloc(plan.chipBytes(c));
        }
        this.control = launcher.alloc(PARAMS_AT + 8L * Math.max(1, plan.params().size()));
        this.graphs = new SegmentGraphs(lowered, segmentStages);
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
     * Runs the program once. Bindings and parameters must have been checked (as the reference
     * checks them); {@code useGraphs} replays captured segments, {@code trace} runs eagerly and
     * keeps every stage's outputs.
     */
    public RunResult step(Map<String, Tensor> bound, Map<String, Long> params, boolean trace, boolean useGraphs)
            throws LaunchException {
        MemoryPlan plan = lowered.memory();
        try (Arena a = Arena.ofConfined()) {
            for (TensorDecl t : lowered.program().tensorsByName().values()) {
                Placed p = plan.tensor(t.name());
                Tensor v = bound.get(t.name());
                MemorySegment bytes = v == null ? a.allocate(Math.max(p.bytes(), 1)) : TensorBytes.of(v);
                launcher.upload(chips[p.chip()] + p.offset(), bytes, p.bytes());
            }
            MemorySegment ctl = a.allocate(PARAMS_AT + 8L * Math.max(1, plan.params().size()));
            for (int i = 0; i < plan.params().size(); i++) {
                ctl.setAtIndex(ValueLayout.JAVA_LONG, PARAMS_AT / 8 + i, params.get(plan.params().get(i)));
            }
            launcher.upload(control, ctl, ctl.byteSize());
        }
        Map<String, List<Tensor>> traced = new LinkedHashMap<>();
        List<Stage> stages = lowered.program().stages();
        if (trace) {
            List<Kernel> kernels = lowered.kernels();
            for (int i = 0; i < kernels.size(); i++) {
                Kernel k = kernels.get(i);
                launch(i);
                boolean lastOfStage = i == kernels.size() - 1 || kernels.get(i + 1).stageIndex() != k.stageIndex();
                if (lastOfStage) {
                    launcher.synchronize();
                    if (fault() != null) {
                        break;
                    }
                    Stage st = stages.get(k.stageIndex());
                    List<Tensor> outs = new ArrayList<>();
                    for (String out : st.outs()) {
                        outs.add(read(plan.buffer(out)));
                    }
                    traced.put(st.id(), outs);
                }
            }
            graphs.countEager(lowered.kernels().size());
        } else {
            graphs.run(this, useGraphs);
        }
        launcher.synchronize();
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        for (TensorDecl t : lowered.program().tensorsByName().values()) {
            tensors.put(t.name(), read(plan.tensor(t.name())));
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
