package org.stagecheck.golden.debug;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;

import org.stagecheck.tensor.compare.Comparison;
import org.stagecheck.backend.MathMode;
import org.stagecheck.interp.StageFault;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.tensor.Tensor;

/**
 * The stage-derived judgement of what a backend recorded (docs/debugging.md, "Beyond rounding"):
 * a {@link BoundWalk} runs the program in float64 with bounds, and every stage the backend
 * recorded is judged against the walk's value within the judge's factor times the walk's bound,
 * then the backend's value replaces the walk's (to within its rounding). So a recorded stage whose producers
 * were recorded is judged on its own rounding from the inputs the backend fed it; one behind
 * unrecorded (fused) stages on the rounding of that chain from the nearest recorded values. The
 * DRAM tensors the backend wrote are judged after the last stage the same way.
 *
 * <p>Used by {@link Replay} (DRAM from the run's inputs) and {@link TraceDiff} (DRAM relative to
 * the reference's trace).
 */
final class RoundingReplay {
    private RoundingReplay() {
    }

    static DiffResult run(DiffResult.Mode resultMode, Program program, BoundWalk walk, StageTrace backend, Judge.StageDerived judge,
                          Map<String, Long> params, MathMode mode) throws DebugInputException {
        List<StageVerdict> verdicts = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        List<Stage> stages = program.stages();
        int first = -1;
        Map<String, Tensor> firstInputs = null;
        BoundWalk.Step firstStep = null;
        boolean substituted = false;
        List<DiffResult.TensorVerdict> tensors = new ArrayList<>();
        try {
            for (int i = 0; i < stages.size(); i++) {
                Stage st = stages.get(i);
                List<Tensor> back = backend.stages().get(st.id());
                Map<String, Tensor> inputs = back != null && first < 0 ? walk.inputsOf(st) : null;
                BoundWalk.Step s;
                try {
                    s = walk.step(i, st);
                } catch (StageFault f) {
                    if (!substituted) {
                        throw new DebugInputException("the float64 evaluation faults at stage '" + st.id() + "': " + f.getMessage());
                    }
                    verdicts.add(new StageVerdict(i, st.id(), TraceDiff.kindName(st), StageVerdict.Verdict.DIVERGES, List.of(),
                            "the reference faults on the backend's values: " + f.getMessage()));
                    notes.add("the reference faulted at stage '" + st.id() + "' on values the backend recorded upstream: " + f.getMessage());
                    first = first < 0 ? i : first;
                    break;
                }
                StageVerdict v = verdict(i, st, s, back, judge);
                verdicts.add(v);
                if (v.verdict() == StageVerdict.Verdict.DIVERGES && first < 0) {
                    first = i;
                    firstInputs = inputs;
                    firstStep = s;
                }
                if (back != null) {
                    for (int p = 0; p < Math.min(back.size(), st.outs().size()); p++) {
                        substituted |= walk.substitute(st.outs().get(p), back.get(p), st);
                    }
                }
            }
            for (Map.Entry<String, Tensor> e : backend.tensors().entrySet()) {
                Tensor[] vb = walk.tensor(e.getKey());
                if (vb != null) {
                    tensors.add(new DiffResult.TensorVerdict(e.getKey(), StageJudgement.compare(judge, vb[0], e.getValue(), vb[1])));
                    long loose = vb[0].dtype().isFloating() ? StageJudgement.unbounded(vb[1]) : 0;
                    if (loose > 0) {
                        notes.add("tensor '" + e.getKey() + "': " + loose + " element(s) have no finite bound from the values the backend "
                                + "recorded and are not judged; record more stages, or bisect");
                    }
                }
            }
        } catch (StageFault f) {
            throw new DebugInputException("the float64 evaluation cannot read the inputs of a stage: " + f.getMessage());
        }
        for (int i = verdicts.size(); i < stages.size(); i++) {
            Stage st = stages.get(i);
            verdicts.add(new StageVerdict(i, st.id(), TraceDiff.kindName(st), StageVerdict.Verdict.NOT_TRACED, List.of(),
                    "not replayed (stopped at a fault)"));
        }
        if (backend.stages().isEmpty()) {
            notes.add("the backend recorded only its outputs: they are judged against the rounding of the whole run from the inputs, "
                    + "which grows with depth and may hide a bug; trace stages, or bisect (re-run the backend on prefixes)");
        }
        Dataflow flow = Dataflow.of(program);
        IntPredicate recorded = p -> backend.stages().containsKey(stages.get(p).id());
        if (first < 0) {
            Divergence d = TraceDiff.tensorDivergence(program, flow, tensors, recorded);
            if (d != null && d.suspects().size() > 1) {
                notes.add("tensor '" + d.tensor() + "' diverges beyond rounding; the backend recorded too little to pin the stage: "
                        + d.suspects().size() + " stage(s) may hold the fault. Trace more stages, or re-run the backend on prefixes of "
                        + "the program (CutBisect).");
            }
            return new DiffResult(resultMode, program.name(), judge, verdicts, tensors, d, null, 0, notes, null);
        }
        Stage st = stages.get(first);
        Dataflow.Cone cone = flow.cone(first, recorded);
        Divergence d = new Divergence(first, st.id(), TraceDiff.kindName(st), null, TraceDiff.suspects(program, cone, first),
                cone.crossed().isEmpty());
        List<Tensor> backOuts = backend.stages().get(st.id());
        ThreeWay tw = null;
        if (firstStep != null && (d.pinned() || TraceDiff.onlyStores(program, cone))) {
            Map<String, Tensor> in = new LinkedHashMap<>();
            firstInputs.forEach((b, t) -> in.put(b, BoundWalk.narrowed(t)));
            tw = Replay.threeWay(program, st, in, firstStep.values().stream().map(BoundWalk::narrowed).toList(), backOuts, params, mode, notes);
        } else if (firstStep != null) {
            notes.add("stage '" + st.id() + "' is judged from values the backend did not record (" + (d.suspects().size() - 1)
                    + " untraced stage(s) upstream, their rounding bounded from the nearest recorded values): the fault is among the suspects");
        }
        DiffResult.StageValues values = firstStep == null || backOuts == null ? null
                : new DiffResult.StageValues(st.outs(), firstStep.values(), backOuts, firstStep.bounds());
        return new DiffResult(resultMode, program.name(), judge, verdicts, tensors, d, tw, 0, notes, values);
    }

    /** One stage's verdict: each port the backend recorded within the factor times its bound of the walk's value. */
    private static StageVerdict verdict(int i, Stage st, BoundWalk.Step s, List<Tensor> back, Judge.StageDerived judge) {
        String kind = TraceDiff.kindName(st);
        if (st.outs().isEmpty()) {
            return new StageVerdict(i, st.id(), kind, StageVerdict.Verdict.NO_OUTPUTS, List.of(), null);
        }
        if (back == null) {
            return new StageVerdict(i, st.id(), kind, StageVerdict.Verdict.NOT_TRACED, List.of(), null);
        }
        List<Comparison> cs = new ArrayList<>();
        boolean ok = back.size() == st.outs().size();
        long unbounded = 0;
        for (int p = 0; p < Math.min(back.size(), st.outs().size()); p++) {
            Comparison c = StageJudgement.compare(judge, s.values().get(p), back.get(p), s.bounds().get(p));
            cs.add(c);
            ok &= c.passed();
            unbounded += s.values().get(p).dtype().isFloating() ? StageJudgement.unbounded(s.bounds().get(p)) : 0;
        }
        String note = back.size() != st.outs().size() ? "the backend recorded " + back.size() + " port(s), the stage has " + st.outs().size()
                : unbounded > 0 ? unbounded + " element(s) have no finite bound and are not judged" : null;
        return new StageVerdict(i, st.id(), kind, ok ? StageVerdict.Verdict.AGREES : StageVerdict.Verdict.DIVERGES, cs, note);
    }
}
