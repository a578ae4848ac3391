package org.stagecheck.golden.debug;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.stagecheck.tensor.compare.Comparator;
import org.stagecheck.tensor.compare.Comparison;
import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.backend.MathMode;
import org.stagecheck.interp.StageFault;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.tensor.Tensor;

/**
 * {@code stagecheck diff} on two traces (docs/debugging.md, "Two traces"): every stage the backend
 * traced is judged against the reference's value under a policy, and the first divergent stage is
 * the first in reference order whose outputs diverge while its inputs agree, that is, while every
 * nearest traced ancestor ({@link Dataflow#cone}) agrees. When untraced stages stand between it and
 * those ancestors, they are suspects too.
 *
 * <p>Typical use:
 * <pre>{@code
 * DiffResult r = TraceDiff.diff(program, StageTrace.of(program, ref), StageTrace.of(program, backendRun),
 *         new Policy.Exact(), params, MathMode.DEFAULT);
 * if (!r.agrees()) System.out.println(DiffText.of(r));
 * }</pre>
 */
public final class TraceDiff {
    private TraceDiff() {
    }

    /**
     * Two traces judged by a value policy: as {@link #diff(Program, StageTrace, StageTrace, Judge, Map, MathMode)}
     * with {@link Judge.ByPolicy}.
     *
     * @throws DebugInputException also for the {@code derived} policy, which a diff cannot use
     */
    public static DiffResult diff(Program program, StageTrace reference, StageTrace backend, Policy policy,
                                  Map<String, Long> params, MathMode mode) throws DebugInputException {
        requireComparable(policy);
        return diff(program, reference, backend, new Judge.ByPolicy(policy), params, mode);
    }

    /**
     * @param reference a full trace of the reference run
     * @param backend   what the backend recorded (any subset of stages, and DRAM tensors)
     * @param judge     {@link Judge.StageDerived}: every traced stage judged against its float64
     *                  value on the backend's own inputs (DRAM reconstructed from the reference's
     *                  trace, so the run's inputs are not needed), as replay judges; or a value
     *                  policy against the reference's traced value, with the first divergent stage
     *                  the first whose inputs agree
     * @param params    parameter values, for the three-way evaluation of a stage that reads one (may be empty)
     * @throws DebugInputException when the reference trace lacks a stage the backend traced
     */
    public static DiffResult diff(Program program, StageTrace reference, StageTrace backend, Judge judge,
                                  Map<String, Long> params, MathMode mode) throws DebugInputException {
        for (Stage st : program.stages()) {
            if (backend.stages().containsKey(st.id()) && !reference.stages().containsKey(st.id())) {
                throw new DebugInputException("the reference trace lacks stage '" + st.id() + "', which the backend traced; trace the reference with run --trace");
            }
        }
        return switch (judge) {
            case Judge.ByPolicy p -> byPolicy(program, reference, backend, p, params, mode);
            case Judge.StageDerived s -> {
                try {
                    ReferenceSteps.checkParams(program, params);
                } catch (DebugInputException e) {
                    throw new DebugInputException(e.getMessage() + " The stage-derived judgement evaluates the stages, so it needs the "
                            + "run's parameters (diff --inputs DIR with the run's inputs.json, or --param NAME=VALUE; or judge by --policy exact)");
                }
                try (BoundWalk walk = BoundWalk.fromTrace(program, reference, params, mode)) {
                    yield RoundingReplay.run(DiffResult.Mode.TRACES, program, walk, backend, s, params, mode);
                }
            }
        };
    }

    private static DiffResult byPolicy(Program program, StageTrace reference, StageTrace backend, Judge.ByPolicy judge,
                                       Map<String, Long> params, MathMode mode) {
        Policy policy = judge.policy();
        List<Stage> stages = program.stages();
        List<StageVerdict> verdicts = new ArrayList<>();
        for (int i = 0; i < stages.size(); i++) {
            Stage st = stages.get(i);
            List<Tensor> back = backend.stages().get(st.id());
            List<Tensor> ref = reference.stages().get(st.id());
            verdicts.add(judge(i, st, ref, back, policy, null));
        }
        List<DiffResult.TensorVerdict> tensors = judgeTensors(reference.tensors(), backend.tensors(), policy);
        Dataflow flow = Dataflow.of(program);
        List<String> notes = new ArrayList<>();
        for (StageVerdict v : verdicts) {
            if (v.verdict() != StageVerdict.Verdict.DIVERGES) {
                continue;
            }
            Dataflow.Cone cone = flow.cone(v.index(), p -> verdicts.get(p).verdict() != StageVerdict.Verdict.NOT_TRACED);
            boolean inputsAgree = cone.recorded().stream().allMatch(p -> verdicts.get(p).verdict() == StageVerdict.Verdict.AGREES);
            if (!inputsAgree) {
                continue;
            }
            Divergence d = new Divergence(v.index(), v.id(), v.kind(), null, suspects(program, cone, v.index()), true);
            ThreeWay tw = null;
            if (d.pinned() || onlyStores(program, cone)) {
                tw = threeWay(program, flow, v.index(), reference, backend, params, mode, notes);
            } else {
                notes.add("untraced stages stand between stage '" + v.id() + "' and the nearest traced values: localise with replay");
            }
            Stage st = stages.get(v.index());
            return new DiffResult(DiffResult.Mode.TRACES, program.name(), judge, verdicts, tensors, d, tw, 0, notes,
                    new DiffResult.StageValues(st.outs(), reference.stages().get(st.id()), backend.stages().get(st.id())));
        }
        return new DiffResult(DiffResult.Mode.TRACES, program.name(), judge, verdicts, tensors,
                tensorDivergence(program, flow, tensors, p -> verdicts.get(p).verdict() != StageVerdict.Verdict.NOT_TRACED), null, 0, notes, null);
    }

    static void requireComparable(Policy policy) throws DebugInputException {
        if (policy instanceof Policy.Derived) {
            throw new DebugInputException("the derived policy bounds whole runs; a diff judges stage values by exact, ulp, allclose or pcc "
                    + "and says for the divergent stage whether it is within its derived bound");
        }
    }

    /** The first DRAM tensor that diverges, with the stages that may hold the fault, or null. */
    static Divergence tensorDivergence(Program program, Dataflow flow, List<DiffResult.TensorVerdict> tensors,
                                       java.util.function.IntPredicate recorded) {
        for (DiffResult.TensorVerdict t : tensors) {
            if (!t.comparison().passed()) {
                Dataflow.Cone cone = flow.coneOfTensor(t.tensor(), recorded);
                List<String> ids = cone.crossed().stream().map(i -> program.stages().get(i).id()).toList();
                return new Divergence(-1, null, null, t.tensor(), ids, false);
            }
        }
        return null;
    }

    /** Whether every unrecorded stage in the cone is a Store: data movement, exact on every conforming backend. */
    static boolean onlyStores(Program program, Dataflow.Cone cone) {
        return cone.crossed().stream().allMatch(p -> program.stages().get(p).kind() instanceof StageKind.Store);
    }

    static List<String> suspects(Program program, Dataflow.Cone cone, int stage) {
        List<Integer> idx = new ArrayList<>(cone.crossed());
        idx.add(stage);
        return idx.stream().sorted().map(i -> program.stages().get(i).id()).toList();
    }

    private static ThreeWay threeWay(Program program, Dataflow flow, int i, StageTrace reference, StageTrace backend,
                                     Map<String, Long> params, MathMode mode, List<String> notes) {
        Stage st = program.stages().get(i);
        List<Tensor> back = backend.stages().get(st.id());
        if (st.kind() instanceof StageKind.Load || st.kind() instanceof StageKind.Recv) {
            return ThreeWay.dataMovement(st, reference.stages().get(st.id()), back, mode);
        }
        Map<String, Tensor> inputs = new LinkedHashMap<>();
        for (Map.Entry<String, Integer> w : flow.bufferWriters(i).entrySet()) {
            Stage writer = program.stages().get(w.getValue());
            int port = writer.outs().indexOf(w.getKey());
            List<Tensor> values = backend.stages().getOrDefault(writer.id(), reference.stages().get(writer.id()));
            if (port < 0 || values == null) {
                notes.add("no three-way for stage '" + st.id() + "': the value of buffer '" + w.getKey() + "' it reads is in no trace");
                return null;
            }
            inputs.put(w.getKey(), values.get(port));
        }
        try {
            return ThreeWay.of(program, st, inputs, params, back, mode);
        } catch (StageFault f) {
            notes.add("no three-way for stage '" + st.id() + "': " + f.getMessage()
                    + (f.getMessage().contains("parameter") ? " (give the run's parameters)" : ""));
            return null;
        }
    }

    /** One stage's verdict from its reference and backend values (either may be null). */
    static StageVerdict judge(int i, Stage st, List<Tensor> ref, List<Tensor> back, Policy policy, String note) {
        String kind = kindName(st);
        if (st.outs().isEmpty()) {
            return new StageVerdict(i, st.id(), kind, StageVerdict.Verdict.NO_OUTPUTS, List.of(), null);
        }
        if (back == null || ref == null) {
            return new StageVerdict(i, st.id(), kind, StageVerdict.Verdict.NOT_TRACED, List.of(), note);
        }
        List<Comparison> cs = new ArrayList<>();
        boolean ok = back.size() == ref.size();
        for (int p = 0; p < Math.min(ref.size(), back.size()); p++) {
            Comparison c = Comparator.compare(ref.get(p), back.get(p), policy);
            cs.add(c);
            ok &= c.passed();
        }
        return new StageVerdict(i, st.id(), kind, ok ? StageVerdict.Verdict.AGREES : StageVerdict.Verdict.DIVERGES, cs,
                back.size() != ref.size() ? "the backend recorded " + back.size() + " port(s), the stage has " + ref.size() : note);
    }

    static List<DiffResult.TensorVerdict> judgeTensors(Map<String, Tensor> reference, Map<String, Tensor> backend, Policy policy) {
        List<DiffResult.TensorVerdict> out = new ArrayList<>();
        for (Map.Entry<String, Tensor> e : reference.entrySet()) {
            Tensor b = backend.get(e.getKey());
            if (b != null) {
                out.add(new DiffResult.TensorVerdict(e.getKey(), Comparator.compare(e.getValue(), b, policy)));
            }
        }
        return out;
    }

    /** The kind, with a Compute's op: {@code Load}, {@code Compute/MatMul}, {@code AllReduce}. */
    public static String kindName(Stage st) {
        return switch (st.kind()) {
            case StageKind.Compute c -> "Compute/" + switch (c.op()) {
                case ComputeOp.Generic g -> "Generic";
                case ComputeOp.MatMul m -> "MatMul";
                case ComputeOp.Reduce r -> "Reduce";
                case ComputeOp.Reshape r -> "Reshape";
                case ComputeOp.Transpose t -> "Transpose";
                case ComputeOp.Slice s -> "Slice";
                case ComputeOp.Concat c2 -> "Concat";
            };
            case StageKind.Load l -> "Load";
            case StageKind.Store s -> "Store";
            case StageKind.Recv r -> "Recv";
            case StageKind.AllReduce a -> "AllReduce";
            case StageKind.Scalar s -> "Scalar";
        };
    }
}
