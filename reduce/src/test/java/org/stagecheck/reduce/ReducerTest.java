package org.stagecheck.reduce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.stagecheck.author.Author;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.backend.Backend;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.validate.Validator;
import org.stagecheck.tensor.Tensor;

/**
 * The minimiser on the tiny model's decode step against fake backends with planted bugs: each
 * failure shrinks to a few stages that fail the same way, and a shrink that would change the
 * failure is never taken.
 */
class ReducerTest {
    private static final Backend REFERENCE = new Interpreter(RunOptions.defaults());

    /** The tiny model's decode step (ctx 16) on {@code tp} chips with its sample inputs, at position 5. */
    static Candidate tinyDecode(int tp) {
        AuthorOutcome o = Author.author(ModelSpec.tiny(), Cut.decode(16), tp == 1 ? AuthorOptions.single() : AuthorOptions.split(tp));
        assertThat(o).isInstanceOf(AuthorOutcome.Authored.class);
        AuthorOutcome.Authored a = (AuthorOutcome.Authored) o;
        Map<String, Tensor> bound = new LinkedHashMap<>(a.weights());
        bound.putAll(a.inputs());
        Map<String, Long> params = new LinkedHashMap<>(a.params());
        params.replaceAll((k, v) -> k.equals("pos") ? 5L : v);
        return new Candidate(a.program(), bound, params);
    }

    private static ReduceResult reduce(Candidate c, FailureOracle oracle, List<String> log) {
        return new Reducer(oracle, REFERENCE, new Budget(3_000, Duration.ofMinutes(5)), log::add).reduce(c);
    }

    @ParameterizedTest
    @EnumSource(PlantedBugs.class)
    void eachPlantedBugShrinksToAFewStagesFailingTheSameWay(PlantedBugs bug) {
        Candidate decode = tinyDecode(bug == PlantedBugs.DROPPED_ALLREDUCE_MEMBER ? 2 : 1);
        FailureOracle oracle = new DivergenceOracle(REFERENCE, bug.backend(), 0);
        Verdict before = oracle.judge(decode);
        assertThat(before).isInstanceOf(Verdict.Fails.class);
        List<String> log = new ArrayList<>();
        ReduceResult r = reduce(decode, oracle, log);

        System.out.println(bug + ": " + r.summary());
        assertThat(r.failure()).isEqualTo(before);
        assertThat(r.failure().signature()).isEqualTo(switch (bug) {
            case SLICE_OFF_BY_ONE -> "diverges at Compute/Slice";
            case WRONG_SIGN_IN_GENERIC -> "diverges at Compute/Generic";
            case DROPPED_ALLREDUCE_MEMBER -> "diverges at AllReduce";
        });
        assertThat(r.minimal().program().stages().size()).as(r.summary()).isLessThanOrEqualTo(4)
                .isLessThan(decode.program().stages().size() / 10);
        assertThat(r.minimal().size().elements()).isLessThan(decode.size().elements());
        // the minimal program is well formed and, judged afresh, fails the same way
        assertThat(new Validator().validate(r.minimal().program())).isEmpty();
        assertThat(oracle.judge(r.minimal()).sameFailureAs(r.failure())).isTrue();
        assertThat(r.budgetExhausted()).isFalse();
        assertThat(log.getFirst()).startsWith("reducing " + decode.size());
        assertThat(log).hasSize(r.steps().size() + 1);
    }

    @Test
    void aCandidateThatFailsDifferentlyIsRejected() {
        // Two bugs: the slice comes first, a wrong sign later. Cutting past the slice would leave
        // a program that still fails, but at a Generic: a different failure, never accepted.
        Candidate decode = tinyDecode(1);
        Backend both = new Backend() {
            private final Backend slice = PlantedBugs.SLICE_OFF_BY_ONE.backend();
            private final Backend sign = PlantedBugs.WRONG_SIGN_IN_GENERIC.backend();

            @Override
            public String name() {
                return "two bugs";
            }

            @Override
            public org.stagecheck.backend.RunResult run(org.stagecheck.spec.ir.Program p, Map<String, Tensor> bound,
                                                        Map<String, Long> params, boolean trace) {
                boolean hasSlice = p.stages().stream().anyMatch(s -> DivergenceOracle.kindOf(s).equals("Compute/Slice"));
                return (hasSlice ? slice : sign).run(p, bound, params, trace);
            }
        };
        FailureOracle oracle = new DivergenceOracle(REFERENCE, both, 0);
        ReduceResult r = reduce(decode, oracle, new ArrayList<>());
        assertThat(r.failure().signature()).isEqualTo("diverges at Compute/Slice");
        assertThat(r.failedDifferently()).as("candidates failing at the Generic were tried and rejected").isPositive();
        assertThat(oracle.judge(r.minimal())).isEqualTo(oracle.judge(r.minimal())).matches(v -> v.sameFailureAs(r.failure()));
    }

    @Test
    void aProgramThatDoesNotFailIsRefused() {
        Candidate decode = tinyDecode(1);
        FailureOracle same = new DivergenceOracle(REFERENCE, REFERENCE, 0);
        assertThatThrownBy(() -> reduce(decode, same, new ArrayList<>()))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("the program does not fail, so there is nothing to reduce");
    }

    @Test
    void aSmallBudgetStopsEarlyWithAProgramThatStillFailsTheSameWay() {
        Candidate decode = tinyDecode(1);
        FailureOracle oracle = new DivergenceOracle(REFERENCE, PlantedBugs.SLICE_OFF_BY_ONE.backend(), 0);
        ReduceResult r = new Reducer(oracle, REFERENCE, new Budget(5, Duration.ofMinutes(1)), s -> { }).reduce(decode);
        assertThat(r.budgetExhausted()).isTrue();
        assertThat(r.tries()).isLessThanOrEqualTo(5);
        assertThat(oracle.judge(r.minimal()).sameFailureAs(r.failure())).isTrue();
    }
}
