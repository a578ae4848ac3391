package org.stagecheck.reduce;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.golden.Golden;
import org.stagecheck.tensor.compare.Comparator;
import org.stagecheck.tensor.compare.Comparison;
import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.golden.debug.CutProgram;
import org.stagecheck.golden.debug.DebugInputException;
import org.stagecheck.golden.debug.DiffResult;
import org.stagecheck.golden.debug.DiffText;
import org.stagecheck.golden.debug.Divergence;
import org.stagecheck.golden.debug.Judge;
import org.stagecheck.golden.debug.StageTrace;
import org.stagecheck.golden.debug.TraceDiff;
import org.stagecheck.golden.derive.DerivedBounds;
import org.stagecheck.backend.MathMode;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.tensor.Tensor;

/**
 * "Fails like this report": the candidate runs on the backend under test and on the reference,
 * both traced, and every value is judged under the report's golden tolerance policy
 * (docs/debugging.md, "Reducing a reported failure").
 *
 * <p><b>Whether it fails.</b> It fails when the backend faults where the reference does not, or
 * when a value fails under the policy: a stage's output, judged as golden check would judge it
 * were it stored as an output (for {@code derived}: within the tolerance golden record would store
 * for it, twice its derived bound), or an output or state tensor, each under its own policy. A
 * candidate on which the reference itself faults does not show the backend's failure: it passes.
 *
 * <p><b>How it fails</b> (the signature, which must stay the same while the program shrinks):
 * <ul>
 *   <li>{@code fault CODE at KIND}: the backend faulted with diagnostic {@code CODE} at a stage of
 *       kind {@code KIND};</li>
 *   <li>{@code diverges at KIND}: the first stage in program order whose outputs fail is of kind
 *       {@code KIND} ({@code Compute/Slice}, {@code AllReduce}, as {@link TraceDiff#kindName}
 *       spells it); every stage before it agrees, so its inputs do: it is the first divergent
 *       stage of a diff of the two traces;</li>
 *   <li>{@code diverges in tensors}: no traced stage fails (the backend traces nothing, or only a
 *       Store's effect differs), but a tensor does.</li>
 * </ul>
 */
public final class FailsLikeOracle implements FailureOracle {
    private final Backend reference;
    private final Backend backend;
    private final Judging judging;

    /**
     * How values are judged.
     *
     * @param policy       the policy of every stage's outputs and of every tensor not in {@code perOutput}
     * @param perOutput    policies of single output tensors, by name
     * @param mathMode     the function budgets a derived tolerance allows the backend
     * @param stageDerived when not null, stages are judged as {@code diff} judges them by default
     *                     ({@link Judge.StageDerived}: beyond the rounding of each stage on the
     *                     backend's own inputs, tensors likewise) instead of by {@code policy};
     *                     {@code policy} is then the derived policy the reduced case is recorded with
     */
    public record Judging(Policy policy, Map<String, Policy> perOutput, MathMode mathMode, Judge.StageDerived stageDerived) {
        public Judging {
            perOutput = Map.copyOf(perOutput);
        }

        /** Stages and tensors judged by policies. */
        public Judging(Policy policy, Map<String, Policy> perOutput, MathMode mathMode) {
            this(policy, perOutput, mathMode, null);
        }

        /** One policy for every value. */
        public static Judging of(Policy policy, MathMode mathMode) {
            return new Judging(policy, Map.of(), mathMode);
        }

        /** As a diff report judged: by {@code judge}, a value policy or the stage-derived judgement. */
        public static Judging of(Judge judge, MathMode mathMode) {
            return switch (judge) {
                case Judge.ByPolicy p -> of(p.policy(), mathMode);
                case Judge.StageDerived s -> new Judging(new Policy.Derived(1), Map.of(), mathMode, s);
            };
        }

        /** The judgement's spelling: the stage-derived one's, or the policy's. */
        public String spelling() {
            return stageDerived != null ? stageDerived.spelling() : policy.spelling();
        }

        Policy policyOf(String tensor) {
            return perOutput.getOrDefault(tensor, policy);
        }

        boolean derived() {
            return policy instanceof Policy.Derived || perOutput.values().stream().anyMatch(p -> p instanceof Policy.Derived);
        }
    }

    public FailsLikeOracle(Backend reference, Backend backend, Judging judging) {
        this.reference = reference;
        this.backend = backend;
        this.judging = judging;
    }

    public Judging judging() {
        return judging;
    }

    @Override
    public Verdict judge(Candidate c) {
        RunResult ref = reference.run(c.program(), c.bound(), c.params(), true);
        if (!ref.ok()) {
            return new Verdict.Passes();
        }
        RunResult got;
        try {
            got = backend.runChecked(c.program(), c.bound(), c.params(), true);
        } catch (RuntimeException e) {
            return new Verdict.Fails("backend error " + e.getClass().getSimpleName(), String.valueOf(e.getMessage()));
        }
        List<Stage> stages = c.program().stages();
        if (!got.ok()) {
            String code = got.faults().getFirst().code();
            for (int i = 0; i < stages.size(); i++) {
                if (stages.get(i).id().equals(got.stoppedAtStage())) {
                    return new Verdict.Fails("fault " + code + " at " + TraceDiff.kindName(stages.get(i)),
                            "stage " + i + " '" + stages.get(i).id() + "': " + got.faults().getFirst().message());
                }
            }
            return new Verdict.Fails("fault " + code, got.faults().getFirst().message());
        }
        if (judging.stageDerived() != null) {
            return stageDerived(c, ref, got);
        }
        Tolerances tol = tolerances(c);
        if (tol == null) {
            return new Verdict.Passes(); // no bound can be derived: nothing can be judged under derived
        }
        Divergent first = firstDivergentStage(stages, ref, got, tol);
        String tensor = firstFailingTensor(c, ref, got, tol);
        if (first != null) {
            return new Verdict.Fails(first.signature(), first.detail() + (tensor == null ? "" : "; " + tensor));
        }
        return tensor == null ? new Verdict.Passes() : new Verdict.Fails("diverges in tensors", tensor);
    }

    /** The verdict of the stage-derived judgement: the diff of both traces, as {@code diff} makes it by default. */
    private Verdict stageDerived(Candidate c, RunResult ref, RunResult got) {
        DiffResult r = stageDiff(c, ref, got);
        if (r == null || r.agrees()) {
            return new Verdict.Passes(); // nothing beyond rounding (or the float64 evaluation cannot judge it)
        }
        Divergence d = r.divergence();
        return d.stageIndex() >= 0 ? new Verdict.Fails("diverges at " + d.kind(), DiffText.headline(r))
                : new Verdict.Fails("diverges in tensors", DiffText.headline(r));
    }

    /** The stage-derived diff of the backend's traced run against the reference's, or null when it cannot be made. */
    private DiffResult stageDiff(Candidate c, RunResult ref, RunResult got) {
        try {
            return TraceDiff.diff(c.program(), StageTrace.of(c.program(), ref), StageTrace.of(c.program(), got), judging.stageDerived(),
                    c.params(), judging.mathMode());
        } catch (DebugInputException e) {
            return null;
        }
    }

    /**
     * The program a golden case is recorded from so that its outputs show the failure: {@code c}
     * itself when the backend faults or an output or state tensor fails, else (a stage fails, but
     * the program stores nothing of it) {@code c} cut after its first failing stage, with that
     * stage's outputs and the values live there stored into new output tensors
     * ({@link CutProgram#prefix}).
     */
    public Candidate observable(Candidate c) {
        RunResult ref = reference.run(c.program(), c.bound(), c.params(), true);
        if (judging.stageDerived() != null) {
            RunResult got = ref.ok() ? backend.runChecked(c.program(), c.bound(), c.params(), true) : null;
            DiffResult r = got == null || !got.ok() ? null : stageDiff(c, ref, got);
            int k = r == null || r.agrees() ? -1 : r.divergence().stageIndex();
            return k < 0 ? c : new Candidate(CutProgram.prefix(c.program(), k).program(), c.bound(), c.params());
        }
        Tolerances tol = tolerances(c);
        if (!ref.ok() || tol == null) {
            return c;
        }
        RunResult got = backend.runChecked(c.program(), c.bound(), c.params(), true);
        if (!got.ok() || firstFailingTensor(c, ref, got, tol) != null) {
            return c;
        }
        Divergent first = firstDivergentStage(c.program().stages(), ref, got, tol);
        return first == null ? c : new Candidate(CutProgram.prefix(c.program(), first.index()).program(), c.bound(), c.params());
    }

    /** The first stage whose outputs fail: its index, and the failure it shows. */
    private record Divergent(int index, String signature, String detail) {}

    /**
     * The derived tolerances golden record would store for each stage output and each floating
     * tensor of this candidate (empty maps when no policy is derived).
     */
    private record Tolerances(Map<String, List<Tensor>> stages, Map<String, Tensor> tensors) {}

    private Divergent firstDivergentStage(List<Stage> stages, RunResult ref, RunResult got, Tolerances tol) {
        for (int i = 0; i < stages.size(); i++) {
            Stage s = stages.get(i);
            List<Tensor> want = ref.trace().get(s.id());
            List<Tensor> have = got.trace().get(s.id());
            if (want == null || have == null) {
                continue;
            }
            List<Tensor> tols = tol.stages().get(s.id());
            for (int port = 0; port < want.size() && port < have.size(); port++) {
                Comparison cmp = compare(want.get(port), have.get(port), judging.policy(), tols == null ? null : tols.get(port));
                if (!cmp.passed()) {
                    return new Divergent(i, "diverges at " + TraceDiff.kindName(s),
                            "stage " + i + " '" + s.id() + "' output " + port + ": " + cmp.summary());
                }
            }
        }
        return null;
    }

    /** "tensor 'NAME': summary" for the first output or state tensor that fails under its policy, or null. */
    private String firstFailingTensor(Candidate c, RunResult ref, RunResult got, Tolerances tol) {
        for (TensorDecl d : c.program().tensors()) {
            if (!d.role().isResult()) {
                continue;
            }
            Tensor want = ref.tensor(d.name());
            Tensor have = got.tensor(d.name());
            if (want == null) {
                continue;
            }
            if (have == null) {
                return "tensor '" + d.name() + "': the backend wrote none";
            }
            Comparison cmp = compare(want, have, judging.policyOf(d.name()), tol.tensors().get(d.name()));
            if (!cmp.passed()) {
                return "tensor '" + d.name() + "': " + cmp.summary();
            }
        }
        return null;
    }

    /** As golden check compares: a derived policy with the stored tolerance, zero for an integer value. */
    private static Comparison compare(Tensor want, Tensor have, Policy policy, Tensor tolerance) {
        if (!(policy instanceof Policy.Derived)) {
            return Comparator.compare(want, have, policy);
        }
        Tensor t = tolerance != null && want.dtype().isFloating() ? tolerance : Tensor.zerosFloat64(DType.F32, want.shape());
        return Comparator.compare(want, have, policy, t);
    }

    /** The candidate's derived tolerances; empty when no policy is derived; null when no bound can be derived. */
    private Tolerances tolerances(Candidate c) {
        if (!judging.derived()) {
            return new Tolerances(Map.of(), Map.of());
        }
        Map<String, List<Tensor>> stages = new HashMap<>();
        try {
            DerivedBounds.Result r = DerivedBounds.compute(c.program(), c.bound(), c.params(), judging.mathMode(),
                    (index, stage, values, bounds) -> {
                        List<Tensor> ports = new ArrayList<>();
                        for (Tensor b : bounds) {
                            ports.add(b.dtype().isFloating() ? Golden.toleranceOf(b) : null);
                        }
                        stages.put(stage.id(), ports);
                    });
            Map<String, Tensor> tensors = new HashMap<>();
            r.bounds().forEach((name, b) -> tensors.put(name, Golden.toleranceOf(b)));
            return new Tolerances(stages, tensors);
        } catch (DerivedBounds.BoundException e) {
            return null;
        }
    }
}
