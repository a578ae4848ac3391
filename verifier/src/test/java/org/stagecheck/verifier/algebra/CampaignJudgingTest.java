package org.stagecheck.verifier.algebra;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.stagecheck.verifier.adversarial.CorpusCase;
import org.stagecheck.verifier.adversarial.CorpusRuns;

/**
 * How the per-class campaign's evaluator compares (docs/verifier.md, "The campaign per split
 * class"): inputs scaled past a format's range, equal infinities, and a tolerance of one unit in
 * the last place of a narrow output. The parent stores {@code x} (f32, {@code [2, 4]}) to an f16
 * output; the split's two chips each store the same rows, to an output of {@code dtype}.
 */
class CampaignJudgingTest {
    private static SplitText parent() {
        return new SplitText("narrow-copy", 1).input("x", 0, 2, 4).generic(0, "y", "f16", new int[] {2, 4}, "in0", "x").output("y", 0, "y");
    }

    private static SplitText split(String dtype, String expr) {
        SplitText s = new SplitText("narrow-copy-split", 2);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, c, 2, 4).shard("x." + c, "x", 0, 0, 2, 2);
            s.generic(c, "y." + c, dtype, new int[] {2, 4}, expr, "x." + c).output("y." + c, c, "y." + c).shard("y." + c, "y", 0, 0, 2, 2);
        }
        return s;
    }

    private static CorpusRuns.Verdict judge(SplitText s, CorpusRuns.Inputs how) {
        CorpusCase c = new CorpusCase("judging", Path.of("judging"), s.program(), s.certificate(), parent().program());
        return CorpusRuns.judge(c, how).verdict();
    }

    /** Inputs in [-10^6, 10^6): nearly every element overflows f16. */
    private static final CorpusRuns.Inputs PAST_F16 = new CorpusRuns.Inputs(1e6, 1, 3, Math.scalb(1.0, -10));

    @Test
    void outputs_that_overflow_to_the_same_infinity_agree() {
        assertThat(judge(split("f16", "in0"), PAST_F16)).isEqualTo(CorpusRuns.Verdict.AGREES);
    }

    @Test
    void a_finite_value_where_the_parent_overflows_differs_however_large_the_other_outputs() {
        // the f32 split keeps 10^5-sized values where the parent holds infinity: the infinities set no scale for the tolerance
        assertThat(judge(split("f32", "in0"), PAST_F16)).isEqualTo(CorpusRuns.Verdict.DIFFERS);
    }

    @Test
    void a_narrow_output_is_compared_within_its_tolerance_only() {
        CorpusRuns.Inputs f16Ulp = new CorpusRuns.Inputs(1, 1, 3, Math.scalb(1.0, -10));
        // the parent's f16 rounding (half a unit) is within 2^-10 of the scale; a value off by 1 % is not
        assertThat(judge(split("f32", "in0"), f16Ulp)).isEqualTo(CorpusRuns.Verdict.AGREES);
        assertThat(judge(split("f16", "mul(in0, 1.01)"), f16Ulp)).isEqualTo(CorpusRuns.Verdict.DIFFERS);
        assertThat(judge(split("f32", "in0"), CorpusRuns.Inputs.DEFAULT)).isEqualTo(CorpusRuns.Verdict.DIFFERS);
    }
}
