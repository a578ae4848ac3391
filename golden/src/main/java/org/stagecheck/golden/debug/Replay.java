package org.stagecheck.golden.debug;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.backend.MathMode;
import org.stagecheck.interp.StageFault;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.tensor.Tensor;

/**
 * Localising by replay (docs/debugging.md, "Replay"): the reference runs the program stage by
 * stage, and after every stage the backend recorded, the backend's own values replace the
 * reference's; each recorded stage is judged on what the reference computes from the backend's
 * inputs. The first recorded stage whose recomputation disagrees with the backend's value holds
 * the fault, together with the unrecorded stages between it and the nearest recorded values (its
 * {@link Dataflow#cone}). One reference run, nothing from the backend but the values it wrote,
 * and a stage judged on its own error only: a rounding difference upstream does not make every
 * later stage diverge.
 */
public final class Replay {
    private Replay() {
    }

    /**
     * Replay judged by a value policy against the reference's f32 recomputation: as
     * {@link #replay(Program, Map, Map, StageTrace, Judge, MathMode)} with {@link Judge.ByPolicy}.
     *
     * @throws DebugInputException also for the {@code derived} policy, which a diff cannot use
     */
    public static DiffResult replay(Program program, Map<String, Tensor> bound, Map<String, Long> params, StageTrace backend,
                                    Policy policy, MathMode mode) throws DebugInputException {
        TraceDiff.requireComparable(policy);
        return replay(program, bound, params, backend, new Judge.ByPolicy(policy), mode);
    }

    /**
     * @param bound   the run's bound tensors (inputs, weights, state), the same the backend ran on
     * @param backend what the backend recorded: some stages (possibly none) and its DRAM tensors
     * @param judge   how a recorded stage is judged: {@link Judge.StageDerived} (the default of
     *                {@code diff}: beyond the rounding of the stage on the backend's inputs) or a
     *                value policy against the reference's f32 recomputation
     * @throws DebugInputException when the inputs do not fit the program, the trace names no stage
     *                             of it, or the reference itself faults
     */
    public static DiffResult replay(Program program, Map<String, Tensor> bound, Map<String, Long> params, StageTrace backend,
                                    Judge judge, MathMode mode) throws DebugInputException {
        Map<String, Stage> byId = new LinkedHashMap<>();
        program.stages().forEach(s -> byId.putIfAbsent(s.id(), s));
        for (String id : backend.stages().keySet()) {
            if (!byId.containsKey(id)) {
                throw new DebugInputException("the backend's trace names stage '" + id + "', which the program does not have");
            }
        }
        return switch (judge) {
            case Judge.ByPolicy p -> byPolicy(program, bound, params, backend, p, mode);
            case Judge.StageDerived s -> {
                ReferenceSteps.check(program, bound, params);
                try (BoundWalk walk = BoundWalk.fromInputs(program, bound, params, mode)) {
                    yield RoundingReplay.run(DiffResult.Mode.REPLAY, program, walk, backend, s, params, mode);
                }
            }
        };
    }

    private static DiffResult byPolicy(Program program, Map<String, Tensor> bound, Map<String, Long> params, StageTrace backend,
                                       Judge.ByPolicy judge, MathMode mode) throws DebugInputException {
        Policy policy = judge.policy();
        List<StageVerdict> verdicts = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        int first = -1;
        Map<String, Tensor> firstInputs = null;
        List<Tensor> firstRef = null;
        Map<String, Tensor> finals = new LinkedHashMap<>();
        boolean substituted = false;
        try (ReferenceSteps ref = new ReferenceSteps(program, bound, params)) {
            List<Stage> stages = program.stages();
            for (int i = 0; i < stages.size(); i++) {
                Stage st = stages.get(i);
                List<Tensor> back = backend.stages().get(st.id());
                Map<String, Tensor> inputs;
                List<Tensor> outs;
                try {
                    inputs = ref.inputsOf(st);
                    outs = ref.run(st);
                } catch (StageFault f) {
                    if (!substituted) {
                        throw new DebugInputException("the reference itself faults at stage '" + st.id() + "': " + f.getMessage());
                    }
                    verdicts.add(new StageVerdict(i, st.id(), TraceDiff.kindName(st), StageVerdict.Verdict.DIVERGES, List.of(),
                            "the reference faults on the backend's values: " + f.getMessage()));
                    notes.add("the reference faulted at stage '" + st.id() + "' on values the backend recorded upstream: " + f.getMessage());
                    first = first < 0 ? i : first;
                    break;
                }
                StageVerdict v = TraceDiff.judge(i, st, outs, back, policy, back == null ? null : "recomputed from the backend's inputs");
                verdicts.add(v);
                if (v.verdict() == StageVerdict.Verdict.DIVERGES && first < 0) {
                    first = i;
                    firstInputs = inputs;
                    firstRef = outs;
                }
                if (back != null) {
                    for (int p = 0; p < Math.min(back.size(), st.outs().size()); p++) {
                        substituted |= ref.substitute(st.outs().get(p), back.get(p));
                    }
                }
            }
            for (String t : backend.tensors().keySet()) {
                Tensor v = ref.tensors().get(t);
                if (v != null) {
                    finals.put(t, v);
                }
            }
        } catch (StageFault f) {
            throw new DebugInputException("the reference cannot read the inputs of a stage: " + f.getMessage());
        }
        for (int i = verdicts.size(); i < program.stages().size(); i++) {
            Stage st = program.stages().get(i);
            verdicts.add(new StageVerdict(i, st.id(), TraceDiff.kindName(st), StageVerdict.Verdict.NOT_TRACED, List.of(), "not replayed (stopped at a fault)"));
        }
        List<DiffResult.TensorVerdict> tensors = TraceDiff.judgeTensors(finals, backend.tensors(), policy);
        Dataflow flow = Dataflow.of(program);
        java.util.function.IntPredicate recorded = p -> backend.stages().containsKey(program.stages().get(p).id());
        if (first < 0) {
            Divergence d = TraceDiff.tensorDivergence(program, flow, tensors, recorded);
            if (d != null && d.suspects().size() > 1) {
                notes.add("tensor '" + d.tensor() + "' diverges; the backend recorded too little to pin the stage: " + d.suspects().size()
                        + " stage(s) may hold the fault. Trace more stages, or re-run the backend on prefixes of the program (CutBisect).");
            }
            return new DiffResult(DiffResult.Mode.REPLAY, program.name(), judge, verdicts, tensors, d, null, 0, notes, null);
        }
        Stage st = program.stages().get(first);
        Dataflow.Cone cone = flow.cone(first, recorded);
        Divergence d = new Divergence(first, st.id(), TraceDiff.kindName(st), null, TraceDiff.suspects(program, cone, first),
                cone.crossed().isEmpty());
        ThreeWay tw = null;
        if (firstInputs != null && (d.pinned() || TraceDiff.onlyStores(program, cone))) {
            tw = threeWay(program, st, firstInputs, firstRef, backend.stages().get(st.id()), params, mode, notes);
        } else if (firstInputs != null) {
            notes.add("stage '" + st.id() + "' is recomputed from values the backend did not record (" + (d.suspects().size() - 1)
                    + " untraced stage(s) upstream): the fault is among the suspects");
        }
        List<Tensor> backOuts = backend.stages().get(st.id());
        DiffResult.StageValues values = firstRef == null || backOuts == null ? null : new DiffResult.StageValues(st.outs(), firstRef, backOuts);
        return new DiffResult(DiffResult.Mode.REPLAY, program.name(), judge, verdicts, tensors, d, tw, 0, notes, values);
    }

    /** The three-way comparison of one stage on the inputs the backend computed it from. */
    static ThreeWay threeWay(Program program, Stage st, Map<String, Tensor> inputs, List<Tensor> refOuts, List<Tensor> backOuts,
                             Map<String, Long> params, MathMode mode, List<String> notes) {
        if (st.kind() instanceof StageKind.Load || st.kind() instanceof StageKind.Recv) {
            return ThreeWay.dataMovement(st, refOuts, backOuts, mode);
        }
        if (st.outs().isEmpty()) {
            notes.add("stage '" + st.id() + "' writes only DRAM; it moves data, which every conforming backend does exactly");
            return null;
        }
        try {
            return ThreeWay.of(program, st, inputs, params, backOuts, mode);
        } catch (StageFault f) {
            notes.add("no three-way for stage '" + st.id() + "': " + f.getMessage());
            return null;
        }
    }
}
