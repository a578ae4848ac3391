package org.stagecheck.golden.debug;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.tensor.compare.Comparison;
import org.stagecheck.backend.MathMode;
import org.stagecheck.interp.StageFault;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.tensor.Tensor;

/**
 * Bisection under the stage-derived judgement (docs/debugging.md, "Bisecting beyond rounding"):
 * the backend runs {@link CutProgram prefixes} of the program, and a <em>segment</em> of stages
 * {@code (lo, hi]} is judged by substituting the backend's own values at cut {@code lo} into a
 * {@link BoundWalk} (to within their rounding), walking stages {@code lo+1..hi} in float64 with bounds, and
 * comparing the backend's values at cut {@code hi} with them, each within the judge's factor times
 * its bound. A segment of one stage is exactly that stage's own judgement; a longer one bounds
 * the rounding of the whole chain, which grows with its length.
 *
 * <p>A segment that passes is taken as free of bugs only when it is <em>conclusive</em>: every
 * floating live value's bound is at most {@link #CONCLUSIVE} of its largest magnitude, and no
 * integer result in it is uncertain. Otherwise (a loose or infinite bound, as at the end of a
 * whole decode step) it is split. The search goes left to right: the first segment of one stage
 * that fails is the answer; it is found in about log2(stages) segments when the bounds stay tight
 * for long stretches, and in up to one run per stage where they do not (live values narrower than
 * f32, whose own rounding is above {@link #CONCLUSIVE}).
 */
final class RoundingBisect {
    /**
     * The looseness (largest bound over largest magnitude) below which a passing segment is
     * conclusive: 2^-14, about 6e-5, some 500 f32 roundoffs. A bug whose effect on every value at
     * the end of a conclusive segment stays within its bound there is not seen by bisection (a
     * trace sees it); the bugs this project plants change values by far more.
     */
    static final double CONCLUSIVE = 0x1p-14;

    private final Program program;
    private final Map<String, Tensor> bound;
    private final Map<String, Long> params;
    private final Backend backend;
    private final Judge.StageDerived judge;
    private final MathMode mode;
    private final Map<Integer, CutRun> runs = new HashMap<>();
    /** The latest judged segment ending at each stage. */
    private final Map<Integer, Segment> judged = new TreeMap<>();
    private int segments;

    /** The backend's run of cut k: its values by output tensor name, or the fault that stopped it. */
    private record CutRun(CutProgram cut, Map<String, Tensor> values, String fault) {}

    /**
     * One judged segment {@code (lo, hi]}.
     *
     * @param comparisons each live value at cut {@code hi} (buffer or tensor name) against the walk's
     * @param inputs      for a one-stage segment, the values the stage read (the backend's, narrowed); else null
     * @param step        for a one-stage segment, the stage's walk values and bounds; else null
     */
    private record Segment(int lo, int hi, boolean within, boolean conclusive, Map<String, Comparison> comparisons, String detail,
                           Map<String, Tensor> inputs, BoundWalk.Step step) {}

    private RoundingBisect(Program program, Map<String, Tensor> bound, Map<String, Long> params, Backend backend,
                           Judge.StageDerived judge, MathMode mode) {
        this.program = program;
        this.bound = bound;
        this.params = params;
        this.backend = backend;
        this.judge = judge;
        this.mode = mode;
    }

    static DiffResult bisect(Program program, Map<String, Tensor> bound, Map<String, Long> params, Backend backend,
                             Judge.StageDerived judge, MathMode mode) throws DebugInputException {
        ReferenceSteps.check(program, bound, params);
        return new RoundingBisect(program, bound, params, backend, judge, mode).run();
    }

    private DiffResult run() throws DebugInputException {
        int n = program.stages().size();
        List<String> notes = new ArrayList<>();
        if (n == 0) {
            return result(null, null, notes, null);
        }
        Segment whole = segment(-1, n - 1);
        int k = whole.within() && whole.conclusive() ? -1 : search(-1, n - 1, whole);
        notes.add("bisection over " + n + " stages judged " + segments + " segment(s) with " + runs.size() + " backend run(s)");
        if (k < 0) {
            if (!whole.within()) {
                notes.add("the values at the end of the program are beyond the rounding of the whole run, but no stage is beyond its own: "
                        + "a masked or compensating divergence; trace the backend");
                String tensor = whole.comparisons().entrySet().stream().filter(e -> !e.getValue().passed()).map(Map.Entry::getKey)
                        .filter(t -> program.tensorsByName().containsKey(t)).findFirst().orElse(null);
                if (tensor != null) {
                    Dataflow.Cone cone = Dataflow.of(program).coneOfTensor(tensor, p -> false);
                    List<String> ids = cone.crossed().stream().map(i -> program.stages().get(i).id()).toList();
                    return result(new Divergence(-1, null, null, tensor, ids, false), null, notes, null);
                }
            }
            return result(null, null, notes, null);
        }
        Stage st = program.stages().get(k);
        Segment at = judged.get(k);
        CutRun cut = runs.get(k);
        if (cut.fault() != null) {
            notes.add("the backend faulted on the prefix ending at stage '" + st.id() + "': " + cut.fault());
            return result(new Divergence(k, st.id(), TraceDiff.kindName(st), null, List.of(st.id()), false), null, notes, null);
        }
        List<Tensor> backOuts = new ArrayList<>();
        for (String o : st.outs()) {
            backOuts.add(cut.values().get(cut.cut().buffers().get(o)));
        }
        ThreeWay tw = null;
        DiffResult.StageValues values = null;
        if (at.step() != null) {
            tw = Replay.threeWay(program, st, at.inputs(), at.step().values().stream().map(BoundWalk::narrowed).toList(), backOuts, params,
                    mode, notes);
            values = st.outs().isEmpty() ? null : new DiffResult.StageValues(st.outs(), at.step().values(), backOuts, at.step().bounds());
        } else if (at.detail() != null) {
            notes.add(at.detail());
        }
        return result(new Divergence(k, st.id(), TraceDiff.kindName(st), null, List.of(st.id()), true), tw, notes, values);
    }

    /**
     * The first stage in {@code (lo, hi]} beyond rounding, or -1; {@code seg} is that segment,
     * already judged and not conclusively within.
     */
    private int search(int lo, int hi, Segment seg) throws DebugInputException {
        if (hi == lo + 1) {
            return seg.within() ? -1 : hi;
        }
        int mid = (lo + hi) >>> 1;
        Segment left = segment(lo, mid);
        if (!(left.within() && left.conclusive())) {
            int k = search(lo, mid, left);
            if (k >= 0) {
                return k;
            }
        }
        Segment right = segment(mid, hi);
        return right.within() && right.conclusive() ? -1 : search(mid, hi, right);
    }

    /** Judges segment {@code (lo, hi]}: the backend's values at cut hi against the walk from its values at cut lo. */
    private Segment segment(int lo, int hi) throws DebugInputException {
        segments++;
        CutRun at = cut(hi);
        Segment s;
        if (at.fault() != null) {
            s = new Segment(lo, hi, false, true, Map.of(), "the backend faulted: " + at.fault(), null, null);
        } else {
            try (BoundWalk walk = BoundWalk.fromInputs(program, bound, params, mode)) {
                s = walkSegment(walk, lo, hi, at);
            }
        }
        judged.put(hi, s);
        return s;
    }

    private Segment walkSegment(BoundWalk walk, int lo, int hi, CutRun at) throws DebugInputException {
        List<Stage> stages = program.stages();
        boolean uncertain = false;
        Map<String, Tensor> inputs = null;
        BoundWalk.Step last = null;
        int i = 0;
        try {
            if (lo >= 0) {
                CutRun from = cut(lo);
                if (from.fault() != null) {
                    return new Segment(lo, hi, false, true, Map.of(), "the backend faulted on the prefix ending at stage '"
                            + stages.get(lo).id() + "': " + from.fault(), null, null);
                }
                if (recvReadsUnsavedDelivery(lo, from.cut())) {
                    for (; i <= lo; i++) {
                        walk.step(i, stages.get(i));
                    }
                }
                Map<String, Stage> writers = writersUpTo(lo);
                for (Map.Entry<String, String> e : from.cut().buffers().entrySet()) {
                    walk.substitute(e.getKey(), from.values().get(e.getValue()), writers.get(e.getKey()));
                }
                for (String t : from.cut().tensors()) {
                    walk.substituteTensor(t, from.values().get(t));
                }
            }
            for (i = lo + 1; i <= hi; i++) {
                Stage st = stages.get(i);
                if (i == hi && hi == lo + 1) {
                    inputs = new LinkedHashMap<>();
                    for (Map.Entry<String, Tensor> e : walk.inputsOf(st).entrySet()) {
                        inputs.put(e.getKey(), BoundWalk.narrowed(e.getValue()));
                    }
                }
                last = walk.step(i, st);
                uncertain |= last.integerUncertain();
            }
        } catch (StageFault f) {
            if (lo < 0) {
                throw new DebugInputException("the float64 evaluation faults at stage '" + stages.get(i).id() + "': " + f.getMessage());
            }
            return new Segment(lo, hi, false, true, Map.of(), "the reference faults at stage '" + stages.get(i).id()
                    + "' on the backend's values: " + f.getMessage(), null, null);
        }
        Map<String, Comparison> cs = new LinkedHashMap<>();
        boolean conclusive = !uncertain;
        try {
            for (Map.Entry<String, String> e : at.cut().buffers().entrySet()) {
                Tensor[] vb = walk.buffer(e.getKey());
                conclusive &= judgeValue(e.getKey(), vb, at.values().get(e.getValue()), uncertain, cs);
            }
            for (String t : at.cut().tensors()) {
                conclusive &= judgeValue(t, walk.tensor(t), at.values().get(t), uncertain, cs);
            }
        } catch (StageFault f) {
            throw new DebugInputException("the float64 evaluation cannot read a live value at stage '" + stages.get(hi).id() + "': " + f.getMessage());
        }
        boolean within = cs.values().stream().allMatch(Comparison::passed);
        return new Segment(lo, hi, within, conclusive, cs, null, inputs, hi == lo + 1 ? last : null);
    }

    /** Judges one live value into {@code cs}; returns whether its bound is tight enough to be conclusive. */
    private boolean judgeValue(String name, Tensor[] vb, Tensor backend, boolean uncertain, Map<String, Comparison> cs) {
        if (vb == null) {
            return true;
        }
        Tensor b = vb[1];
        if (!vb[0].dtype().isFloating() && uncertain) {
            double[] inf = new double[Math.toIntExact(b.size())];
            java.util.Arrays.fill(inf, Double.POSITIVE_INFINITY);
            b = Tensor.wrapDoubles(b.dtype(), b.shape(), inf);
        }
        cs.put(name, StageJudgement.compare(judge, vb[0], backend, b));
        return !vb[0].dtype().isFloating() || StageJudgement.looseness(vb[0], b) <= CONCLUSIVE;
    }

    /** The last writer at or before stage {@code k} of every buffer written there. */
    private Map<String, Stage> writersUpTo(int k) {
        Map<String, Stage> w = new HashMap<>();
        for (int i = 0; i <= k; i++) {
            Stage st = program.stages().get(i);
            for (String b : Dataflow.written(st)) {
                w.put(b, st);
            }
        }
        return w;
    }

    /**
     * Whether a Recv after stage {@code lo} receives a multicast whose Load ran at or before
     * {@code lo} with an output the cut does not save: then the walk must run the prefix to
     * deliver it, as cut values cannot.
     */
    private boolean recvReadsUnsavedDelivery(int lo, CutProgram cut) {
        Map<String, Stage> latest = new HashMap<>();
        List<Stage> stages = program.stages();
        for (int i = 0; i <= lo; i++) {
            if (stages.get(i).kind() instanceof StageKind.Load l && l.multicast() != null) {
                latest.put(l.multicast(), stages.get(i));
            }
        }
        for (int i = lo + 1; i < stages.size(); i++) {
            Stage st = stages.get(i);
            if (st.kind() instanceof StageKind.Load l && l.multicast() != null) {
                latest.remove(l.multicast());
            }
            if (st.kind() instanceof StageKind.Recv r && latest.containsKey(r.group())
                    && !cut.buffers().containsKey(latest.get(r.group()).outs().get(0))) {
                return true;
            }
        }
        return false;
    }

    /** The backend's run of the prefix ending at stage {@code k} (run once). */
    private CutRun cut(int k) throws DebugInputException {
        CutRun done = runs.get(k);
        if (done != null) {
            return done;
        }
        CutProgram cut = CutProgram.prefix(program, k);
        RunResult back = backend.runChecked(cut.program(), bound, params, false);
        CutProgram.Exported e = cut.exported(back, backend.name());
        CutRun r = new CutRun(cut, e.values(), e.fault());
        runs.put(k, r);
        return r;
    }

    private DiffResult result(Divergence d, ThreeWay tw, List<String> notes, DiffResult.StageValues values) {
        List<StageVerdict> verdicts = new ArrayList<>();
        List<Stage> stages = program.stages();
        for (int i = 0; i < stages.size(); i++) {
            Stage st = stages.get(i);
            Segment s = judged.get(i);
            String kind = TraceDiff.kindName(st);
            if (s == null) {
                verdicts.add(new StageVerdict(i, st.id(), kind, StageVerdict.Verdict.NOT_TRACED, List.of(), "no cut here"));
                continue;
            }
            CutRun r = runs.get(i);
            List<Comparison> own = new ArrayList<>();
            for (String o : st.outs()) {
                Comparison c = s.comparisons().get(o);
                if (c != null) {
                    own.add(c);
                }
            }
            long bad = s.comparisons().values().stream().filter(c -> !c.passed()).count();
            String note = r.fault() != null ? "the backend faulted: " + r.fault()
                    : "segment from " + (s.lo() < 0 ? "the inputs" : "cut #" + s.lo()) + ": " + s.comparisons().size() + " live value(s), "
                    + bad + " beyond rounding" + (s.within() && !s.conclusive() ? "; its bound is loose, so it was split" : "");
            verdicts.add(new StageVerdict(i, st.id(), kind, s.within() ? StageVerdict.Verdict.AGREES : StageVerdict.Verdict.DIVERGES, own, note));
        }
        return new DiffResult(DiffResult.Mode.BISECT, program.name(), judge, verdicts, List.of(), d, tw, runs.size(), notes, values);
    }
}
