package org.stagecheck.golden.debug;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.golden.Subjects;
import org.stagecheck.golden.Subjects.Subject;
import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.backend.MathMode;
import org.stagecheck.golden.testing.PlantedBackend;
import org.stagecheck.golden.testing.PlantedBackend.Bug;
import org.stagecheck.golden.testing.Rounding;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.tensor.Tensor;

/** The one-call localiser picks replay when the backend traces and bisection when it cannot. */
class MismatchTest {
    private static Subject chain() throws Exception {
        return Subjects.examples().stream().filter(s -> s.name().equals("elementwise-chain")).findFirst().orElseThrow();
    }

    @Test
    void aTracingBackendIsReplayedOnce() throws Exception {
        Subject s = chain();
        DiffResult r = Mismatch.locate(s.program(), s.bound(), s.params(), PlantedBackend.at(Bug.GENERIC_WRONG_SIGN, "add_bias_clamp"),
                new Policy.Exact(), MathMode.PRECISE);
        assertThat(r.mode()).isEqualTo(DiffResult.Mode.REPLAY);
        assertThat(r.divergence().stageId()).isEqualTo("add_bias_clamp");
        assertThat(r.threeWay().classification()).isEqualTo(ThreeWay.Classification.BEYOND_BOUND);
    }

    @Test
    void aBackendThatNeverTracesIsBisected() throws Exception {
        Subject s = chain();
        Backend planted = PlantedBackend.at(Bug.GENERIC_WRONG_SIGN, "add_bias_clamp");
        Backend outputsOnly = new Backend() {
            @Override
            public String name() {
                return "outputs-only";
            }

            @Override
            public RunResult run(Program program, Map<String, Tensor> bound, Map<String, Long> params, boolean trace) {
                return planted.run(program, bound, params, false);
            }
        };
        DiffResult r = Mismatch.locate(s.program(), s.bound(), s.params(), outputsOnly, new Policy.Exact(), MathMode.PRECISE);
        assertThat(r.mode()).isEqualTo(DiffResult.Mode.BISECT);
        assertThat(r.divergence().stageId()).isEqualTo("add_bias_clamp");
        assertThat(r.divergence().confirmed()).isTrue();
    }

    /**
     * Under the default judgement outputs alone are judged only against the whole run's rounding:
     * a backend that never traces is bisected at once, even where its outputs would pass that.
     */
    @Test
    @Tag("slow") // bisects a decode step stage by stage
    void underTheDefaultJudgementABackendThatNeverTracesIsBisectedAtOnce() throws Exception {
        Subject s = Subjects.tinyCuts(false, false).stream().filter(x -> x.name().equals("tiny-decode")).findFirst().orElseThrow();
        Backend planted = PlantedBackend.at(Bug.NORM_EPSILON, "final_norm_2").roundedElsewhere(Rounding.F64_PER_STAGE);
        Backend outputsOnly = new Backend() {
            @Override
            public String name() {
                return "outputs-only";
            }

            @Override
            public RunResult run(Program program, Map<String, Tensor> bound, Map<String, Long> params, boolean trace) {
                return planted.run(program, bound, params, false);
            }
        };
        DiffResult r = Mismatch.locate(s.program(), s.bound(), s.params(), outputsOnly, Judge.defaults(), MathMode.PRECISE);
        assertThat(r.mode()).isEqualTo(DiffResult.Mode.BISECT);
        assertThat(r.divergence().stageId()).isEqualTo("final_norm_2");
        assertThat(r.divergence().confirmed()).isTrue();
        assertThat(Mismatch.locate(s.program(), s.bound(), s.params(), planted, Judge.defaults(), MathMode.PRECISE).mode())
                .isEqualTo(DiffResult.Mode.REPLAY);
    }

    @Test
    void theReferenceAgreesWithItself() throws Exception {
        Subject s = chain();
        DiffResult r = Mismatch.locate(s.program(), s.bound(), s.params(), new Interpreter(RunOptions.defaults()), new Policy.Exact(),
                MathMode.PRECISE);
        assertThat(r.agrees()).isTrue();
        assertThat(r.stages()).allMatch(v -> v.verdict() != StageVerdict.Verdict.DIVERGES);
    }
}
