package org.stagecheck.golden.debug;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.tensor.compare.Comparator;
import org.stagecheck.tensor.compare.Comparison;
import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.backend.MathMode;
import org.stagecheck.backend.Backends;
import org.stagecheck.interp.StageFault;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.tensor.Tensor;

/**
 * Localising when the backend writes only its outputs (docs/debugging.md, "Bisecting a backend
 * that writes only its outputs"): the backend runs {@link CutProgram prefixes} of the program, which
 * store every value live at the cut as an ordinary output; the first cut whose values disagree with
 * the reference's is found by bisection (about log2(stages) backend runs). Then replay pins it:
 * the backend's values at the cut before are substituted into the reference, the stage at the cut
 * is recomputed from them, and if that recomputation disagrees with the backend's value the stage
 * is the culprit (confirmed) and the three-way comparison runs on exactly those inputs.
 *
 * <p>Bisection assumes that once a value diverges, some value live at every later cut diverges;
 * a divergence that later values mask (an arg-max that picks the same token) can break that, and
 * the confirmation then says so.
 */
public final class CutBisect {
    private CutBisect() {
    }

    /** One cut: the values both sides had live after stage k, compared. */
    private record CutRun(CutProgram cut, Map<String, Tensor> backend, Map<String, Comparison> comparisons, String fault) {
        boolean agrees() {
            return fault == null && comparisons.values().stream().allMatch(Comparison::passed);
        }
    }

    /**
     * Bisection judged by a value policy: as {@link #bisect(Program, Map, Map, Backend, Judge, MathMode)}
     * with {@link Judge.ByPolicy}.
     *
     * @throws DebugInputException also for the {@code derived} policy, which a diff cannot use
     */
    public static DiffResult bisect(Program program, Map<String, Tensor> bound, Map<String, Long> params, Backend backend,
                                    Policy policy, MathMode mode) throws DebugInputException {
        TraceDiff.requireComparable(policy);
        return bisect(program, bound, params, backend, new Judge.ByPolicy(policy), mode);
    }

    /**
     * @param backend the backend under test; it is only asked to run programs and return their outputs
     * @param judge   {@link Judge.StageDerived}: segments of stages judged against the rounding of
     *                the chain from the backend's own values ({@link RoundingBisect}); or a value
     *                policy: every live value at a cut against the reference's run of the same cut
     * @throws DebugInputException when the reference faults or the inputs do not fit the program
     */
    public static DiffResult bisect(Program program, Map<String, Tensor> bound, Map<String, Long> params, Backend backend,
                                    Judge judge, MathMode mode) throws DebugInputException {
        return switch (judge) {
            case Judge.ByPolicy p -> byPolicy(program, bound, params, backend, p, mode);
            case Judge.StageDerived s -> RoundingBisect.bisect(program, bound, params, backend, s, mode);
        };
    }

    private static DiffResult byPolicy(Program program, Map<String, Tensor> bound, Map<String, Long> params, Backend backend,
                                       Judge.ByPolicy judge, MathMode mode) throws DebugInputException {
        Policy policy = judge.policy();
        int n = program.stages().size();
        Map<Integer, CutRun> runs = new HashMap<>();
        List<String> notes = new ArrayList<>();
        if (n == 0 || cut(program, n - 1, bound, params, backend, policy, runs).agrees()) {
            return result(program, judge, runs, null, null, notes, null);
        }
        int lo = -1;
        int hi = n - 1;
        while (hi - lo > 1) {
            int mid = (lo + hi) >>> 1;
            if (cut(program, mid, bound, params, backend, policy, runs).agrees()) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        int k = hi;
        Stage st = program.stages().get(k);
        CutRun at = runs.get(k);
        CutRun before = k == 0 ? null : cut(program, k - 1, bound, params, backend, policy, runs);
        if (at.fault() != null) {
            notes.add("the backend faulted on the prefix ending at stage '" + st.id() + "': " + at.fault());
            return result(program, judge, runs, new Divergence(k, st.id(), TraceDiff.kindName(st), null, List.of(st.id()), false), null, notes, null);
        }
        List<Tensor> backOuts = new ArrayList<>();
        for (String o : st.outs()) {
            backOuts.add(at.backend().get(at.cut().buffers().get(o)));
        }
        ThreeWay tw = null;
        boolean confirmed;
        DiffResult.StageValues values = null;
        try (ReferenceSteps ref = new ReferenceSteps(program, bound, params)) {
            for (int i = 0; i < k; i++) {
                ref.run(program.stages().get(i));
            }
            if (before != null) {
                for (Map.Entry<String, String> e : before.cut().buffers().entrySet()) {
                    ref.substitute(e.getKey(), before.backend().get(e.getValue()));
                }
                for (String t : before.cut().tensors()) {
                    ref.substituteTensor(t, before.backend().get(t));
                }
            }
            Map<String, Tensor> inputs = ref.inputsOf(st);
            List<Tensor> refOuts = ref.run(st);
            values = new DiffResult.StageValues(st.outs(), refOuts, backOuts);
            confirmed = !TraceDiff.judge(k, st, refOuts, backOuts, policy, null).verdict().equals(StageVerdict.Verdict.AGREES);
            if (st.outs().isEmpty()) {
                confirmed = at.cut().tensors().stream().anyMatch(t -> !Comparator.compare(ref.tensors().get(t), at.backend().get(t), policy).passed());
            }
            if (confirmed) {
                tw = Replay.threeWay(program, st, inputs, refOuts, backOuts, params, mode, notes);
            } else {
                notes.add("the values after stage '" + st.id() + "' are the first to disagree, but recomputing the stage from the backend's own "
                        + "inputs agrees with it: an earlier divergence was masked and reappears here");
            }
        } catch (StageFault f) {
            throw new DebugInputException("the reference faults while replaying stage '" + st.id() + "': " + f.getMessage());
        }
        notes.add("bisection over " + n + " stages took " + runs.size() + " backend run(s)");
        Divergence d = new Divergence(k, st.id(), TraceDiff.kindName(st), null, List.of(st.id()), confirmed);
        return result(program, judge, runs, d, tw, notes, values);
    }

    private static CutRun cut(Program program, int k, Map<String, Tensor> bound, Map<String, Long> params, Backend backend,
                              Policy policy, Map<Integer, CutRun> runs) throws DebugInputException {
        CutRun done = runs.get(k);
        if (done != null) {
            return done;
        }
        CutProgram cut = CutProgram.prefix(program, k);
        RunResult ref = Backends.named("interp").run(cut.program(), bound, params);
        if (!ref.ok()) {
            throw new DebugInputException("the reference faults on the program: " + ref.faults().get(0).message());
        }
        RunResult back = backend.runChecked(cut.program(), bound, params, false);
        CutProgram.Exported e = cut.exported(back, backend.name());
        Map<String, Comparison> cs = new LinkedHashMap<>();
        e.values().forEach((t, b) -> cs.put(t, Comparator.compare(ref.tensor(t), b, policy)));
        CutRun r = new CutRun(cut, e.values(), cs, e.fault());
        runs.put(k, r);
        return r;
    }

    private static DiffResult result(Program program, Judge judge, Map<Integer, CutRun> runs, Divergence d, ThreeWay tw, List<String> notes,
                                     DiffResult.StageValues values) {
        List<StageVerdict> verdicts = new ArrayList<>();
        List<Stage> stages = program.stages();
        for (int i = 0; i < stages.size(); i++) {
            Stage st = stages.get(i);
            CutRun r = runs.get(i);
            String kind = TraceDiff.kindName(st);
            if (r == null) {
                verdicts.add(new StageVerdict(i, st.id(), kind, StageVerdict.Verdict.NOT_TRACED, List.of(), "no cut here"));
                continue;
            }
            List<Comparison> own = new ArrayList<>();
            for (String o : st.outs()) {
                Comparison c = r.comparisons().get(r.cut().buffers().get(o));
                if (c != null) {
                    own.add(c);
                }
            }
            long bad = r.comparisons().values().stream().filter(c -> !c.passed()).count();
            String note = r.fault() != null ? "the backend faulted: " + r.fault()
                    : "cut after this stage: " + r.comparisons().size() + " live value(s), " + bad + " diverge";
            verdicts.add(new StageVerdict(i, st.id(), kind, r.agrees() ? StageVerdict.Verdict.AGREES : StageVerdict.Verdict.DIVERGES, own, note));
        }
        return new DiffResult(DiffResult.Mode.BISECT, program.name(), judge, verdicts, List.of(), d, tw, runs.size(), notes, values);
    }
}
