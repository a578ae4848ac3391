package org.stagecheck.reduce;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.validate.Validator;

/**
 * The minimiser: shrinks a failing program while keeping <em>the same failure</em>. A shrink is
 * accepted only when the candidate is well formed (the {@link Validator}, and no stage reads a
 * buffer that no earlier stage wrote unless the original did so too) and the oracle says it fails
 * with the same signature ({@link Verdict#sameFailureAs}); a candidate that passes, or fails
 * differently, is rejected and counted.
 *
 * <p>Moves, tried in this order until none applies (a fixed point) or the budget runs out:
 * <ol>
 *   <li><b>cut</b> the program at the latest stage that keeps the failure (binary search), feeding
 *       what the earlier stages handed on from the reference run ({@link CutMove});</li>
 *   <li><b>drop</b> stages: halves, quarters, ... down to single stages, wherever what remains is
 *       still well formed;</li>
 *   <li><b>simplify</b> a Generic's expression, one node replaced by one of its arguments;</li>
 *   <li><b>shrink</b> an extent to 1, else to half, in every declaration at once ({@link ShrinkMove}).</li>
 * </ol>
 * Declarations that no stage names any more are dropped after every move. Deterministic: the same
 * program, inputs and oracle give the same steps.
 */
public final class Reducer {
    private final FailureOracle oracle;
    private final Backend reference;
    private final Budget budget;
    private final Consumer<String> progress;
    private final Validator validator = new Validator();

    /**
     * @param oracle    decides "still fails the same way"
     * @param reference the backend whose values a cut feeds in (the interpreter)
     * @param progress  receives one line per accepted shrink (and the start)
     */
    public Reducer(FailureOracle oracle, Backend reference, Budget budget, Consumer<String> progress) {
        this.oracle = oracle;
        this.reference = reference;
        this.budget = budget;
        this.progress = progress;
    }

    /** Thrown by {@link #reduce} for a program the oracle does not judge failing. */
    public static final class NothingToReduce extends IllegalArgumentException {
        NothingToReduce() {
            super("the program does not fail, so there is nothing to reduce");
        }
    }

    /** Reduces {@code original}, which must fail; throws {@link NothingToReduce} when it does not. */
    public ReduceResult reduce(Candidate original) {
        return new Run(original).go();
    }

    /** The state of one reduction. */
    private final class Run {
        private final Candidate original;
        private final Set<String> originalEarlyReads;
        private final long start = System.nanoTime();
        private Candidate current;
        private Verdict.Fails failure;
        private int tries;
        private int accepted;
        private int invalid;
        private int failedDifferently;
        private int passed;
        private boolean exhausted;
        private final List<String> steps = new ArrayList<>();

        Run(Candidate original) {
            this.original = original;
            this.originalEarlyReads = Dataflow.readsBeforeWrite(original.program());
            this.current = original;
        }

        ReduceResult go() {
            Verdict first = oracle.judge(original);
            tries++;
            if (!(first instanceof Verdict.Fails f)) {
                throw new NothingToReduce();
            }
            failure = f;
            progress.accept("reducing " + original.size() + ", failing '" + f.signature() + "'");
            boolean changed = true;
            while (changed && !outOfBudget()) {
                changed = cut() | drop() | simplify() | shrink();
            }
            return new ReduceResult(original, current, failure, tries, accepted, invalid, failedDifferently, passed,
                    (System.nanoTime() - start) / 1_000_000, exhausted, steps);
        }

        private boolean outOfBudget() {
            if (tries >= budget.tries() || System.nanoTime() - start >= budget.time().toNanos()) {
                exhausted = true;
            }
            return exhausted;
        }

        /** Tries one candidate; accepts it when it is well formed and fails the same way. */
        private boolean attempt(Candidate candidate, String move) {
            if (candidate == null || outOfBudget()) {
                return false;
            }
            Candidate c = Prune.unused(candidate);
            if (!wellFormed(c.program())) {
                invalid++;
                return false;
            }
            Verdict v = oracle.judge(c);
            tries++;
            if (v.sameFailureAs(failure)) {
                current = c;
                accepted++;
                String line = move + ": " + c.size();
                steps.add(line);
                progress.accept(line);
                return true;
            }
            if (v instanceof Verdict.Fails) {
                failedDifferently++;
            } else {
                passed++;
            }
            return false;
        }

        private boolean wellFormed(Program p) {
            return validator.validate(p).isEmpty() && originalEarlyReads.containsAll(Dataflow.readsBeforeWrite(p));
        }

        /** Binary search for the latest cut that keeps the failure. */
        private boolean cut() {
            int n = current.program().stages().size();
            if (n < 2) {
                return false;
            }
            RunResult traced = reference.run(current.program(), current.bound(), current.params(), true);
            if (!traced.ok()) {
                return false;
            }
            Candidate base = current;
            int lo = 1;
            int hi = n - 1;
            Candidate best = null;
            int bestK = -1;
            while (lo <= hi && !outOfBudget()) {
                int k = (lo + hi) >>> 1;
                Candidate c = CutMove.at(base, k, traced, reference);
                if (c != null && attempt(c, "cut at stage " + k + " '" + base.program().stages().get(k).id() + "'")) {
                    best = current;
                    bestK = k;
                    current = base;
                    lo = k + 1;
                } else {
                    hi = k - 1;
                }
            }
            if (best != null) {
                current = best;
                return bestK > 0;
            }
            return false;
        }

        /** Drops runs of stages, halves first, down to single stages. */
        private boolean drop() {
            boolean any = false;
            for (int size = Math.max(1, current.program().stages().size() / 2); size >= 1 && !outOfBudget(); size /= 2) {
                int at = 0;
                while (at < current.program().stages().size() && !outOfBudget()) {
                    List<Stage> stages = current.program().stages();
                    int to = Math.min(stages.size(), at + size);
                    if (to - at == stages.size()) {
                        break; // never drop every stage
                    }
                    List<Stage> kept = new ArrayList<>(stages.subList(0, at));
                    kept.addAll(stages.subList(to, stages.size()));
                    Candidate c = new Candidate(current.program().withStages(kept), current.bound(), current.params());
                    if (attempt(c, "drop " + (to - at) + " stage(s) from '" + stages.get(at).id() + "'")) {
                        any = true;
                    } else {
                        at += size;
                    }
                }
                if (size == 1) {
                    break;
                }
            }
            return any;
        }

        private boolean simplify() {
            boolean any = false;
            for (int i = 0; i < current.program().stages().size() && !outOfBudget(); i++) {
                boolean again = true;
                while (again && !outOfBudget()) {
                    again = false;
                    for (Program p : ExprMove.simplifications(current.program(), i)) {
                        if (attempt(new Candidate(p, current.bound(), current.params()),
                                "simplify the expression of '" + p.stages().get(i).id() + "'")) {
                            any = again = true;
                            break;
                        }
                    }
                }
            }
            return any;
        }

        private boolean shrink() {
            boolean any = false;
            for (int extent : ShrinkMove.extents(current.program())) {
                if (outOfBudget()) {
                    break;
                }
                if (attempt(ShrinkMove.extent(current, extent, 1), "shrink extent " + extent + " to 1")
                        || (extent > 3 && attempt(ShrinkMove.extent(current, extent, extent / 2), "shrink extent " + extent + " to " + extent / 2))) {
                    any = true;
                }
            }
            return any;
        }
    }
}
